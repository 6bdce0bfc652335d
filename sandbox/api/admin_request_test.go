package api

import (
	"reflect"
	"testing"
)

// Each admin request type mirrors its field table, as the operations' requests do:
// a drift would check a member and then drop it, or never fill one.
func TestAdminRequestShapes(t *testing.T) {
	for _, tt := range []struct {
		spec []field
		req  reflect.Type
	}{
		{orderStatusBody, reflect.TypeFor[orderStatusRequest]()},
		{clockBody, reflect.TypeFor[clockRequest]()},
		{activeScenariosBody, reflect.TypeFor[activeScenariosRequest]()},
	} {
		if problems := checkShape(tt.spec, tt.req); len(problems) > 0 {
			t.Errorf("%s: %v", tt.req, problems)
		}
	}
}
