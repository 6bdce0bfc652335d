package sandbox

import "testing"

// A GUID is an id the SDKs' tests made up, bare or after a prefix (GP's 40042); any
// other id is looked up, a fixture's own with a hyphen included. Only MER_ ids can be
// merchants.
func TestMadeUpIDs(t *testing.T) {
	for id, want := range map[string]struct{ madeUp, merchant bool }{
		"MER_6b0e1f2a3c4d4e5f8a9b0c1d2e3f4a5b":      {false, true},
		"MER_acme-eu":                               {false, true},
		"TRA_acme-eu":                               {false, false},
		"MER_79ac6201-eed9-41c6-8f09-fd77eb58bde6":  {true, false},
		"MER_79AC6201-EED9-41C6-8F09-FD77EB58BDE6":  {true, false},
		"79ac6201-eed9-41c6-8f09-fd77eb58bde6":      {true, false},
		"TRA_79ac6201-eed9-41c6-8f09-fd77eb58bde6":  {true, false},
		"MER_79ac6201-eed9-41c6-8f09-fd77eb58bde6x": {false, true},
	} {
		if got := madeUpID(id); got != want.madeUp {
			t.Errorf("madeUpID(%q) = %v, want %v", id, got, want.madeUp)
		}
		if got := merchantIDForm(id); got != want.merchant {
			t.Errorf("merchantIDForm(%q) = %v, want %v", id, got, want.merchant)
		}
	}
}
