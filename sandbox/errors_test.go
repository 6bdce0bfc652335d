package sandbox

import "testing"

// A scenario that scripts only a code gets the catalogue's words; for 40039 there is
// no first resource to name, so the text stops before "id=".
func TestCatalogueDescriptionOfADuplicate(t *testing.T) {
	if got, want := CatalogueDescription(CodeDuplicateAction, "40039"), "Idempotency Key seen before"; got != want {
		t.Errorf("scripted 40039: %q, want %q", got, want)
	}
	if got, want := DuplicateAction("TRN_1", "").Description, "Idempotency Key seen before: id=TRN_1"; got != want {
		t.Errorf("a repeated key: %q, want %q", got, want)
	}
	if got, want := DuplicateAction("ORD_1", "INITIATED").Description, "Idempotency Key seen before: id=ORD_1, status=INITIATED"; got != want {
		t.Errorf("a repeated order key: %q, want %q", got, want)
	}
}
