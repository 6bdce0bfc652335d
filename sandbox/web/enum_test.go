package web

import (
	"reflect"
	"slices"
	"testing"
)

// Enum reads a member's allowed values from its gp tag, and panics on a field that
// has none, which only a programming error makes.
func TestEnumReadsTheTag(t *testing.T) {
	type body struct {
		Mode  string `json:"mode" gp:"required,enum=CHIP|SWIPE"`
		Other string `json:"other" gp:"max=5"`
	}
	if got := Enum(reflect.TypeFor[body](), "Mode"); !slices.Equal(got, []string{"CHIP", "SWIPE"}) {
		t.Errorf("Enum = %v", got)
	}
	for _, field := range []string{"Other", "Missing"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Enum of %s did not panic", field)
				}
			}()
			Enum(reflect.TypeFor[body](), field)
		}()
	}
}
