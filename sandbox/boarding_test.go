package sandbox

import "testing"

// A GUID is no merchant id, bare or after MER_ (GP's 40042); any other MER_ id is one,
// a fixture's own with a hyphen included.
func TestMerchantIDForm(t *testing.T) {
	for id, want := range map[string]bool{
		"MER_6b0e1f2a3c4d4e5f8a9b0c1d2e3f4a5b":      true,
		"MER_acme-eu":                               true,
		"MER_79ac6201-eed9-41c6-8f09-fd77eb58bde6":  false,
		"MER_79AC6201-EED9-41C6-8F09-FD77EB58BDE6":  false,
		"79ac6201-eed9-41c6-8f09-fd77eb58bde6":      false,
		"TRA_00000000000000000000000000000001":      false,
		"MER_79ac6201-eed9-41c6-8f09-fd77eb58bde6x": true,
	} {
		if got := merchantIDForm(id); got != want {
			t.Errorf("merchantIDForm(%q) = %v, want %v", id, got, want)
		}
	}
}
