package bounded

import (
	"fmt"
	"testing"
)

func TestStartsOverWhenFull(t *testing.T) {
	m := New[int](3)
	for i := range 3 {
		m.Put(fmt.Sprint(i), i)
	}
	if v, ok := m.Get("2"); !ok || v != 2 {
		t.Fatalf("Get(2) = %d, %v", v, ok)
	}
	m.Put("3", 3) // full: starts over
	if _, ok := m.Get("0"); ok {
		t.Error("a full map kept its old entries")
	}
	if v, ok := m.Get("3"); !ok || v != 3 {
		t.Errorf("Get(3) = %d, %v", v, ok)
	}
}

func TestApplyClearsThenStores(t *testing.T) {
	m := New[string](10)
	m.Put("old", "x")
	m.Apply(true, map[string]string{"new": "y"})
	if _, ok := m.Get("old"); ok {
		t.Error("Apply(clear) kept an old entry")
	}
	if v, _ := m.Get("new"); v != "y" {
		t.Errorf("Get(new) = %q", v)
	}
	m.Apply(false, map[string]string{"more": "z"})
	if v, _ := m.Get("new"); v != "y" {
		t.Error("Apply without clear dropped an entry")
	}
	m.Clear()
	if _, ok := m.Get("more"); ok {
		t.Error("Clear kept an entry")
	}
}

func TestDeleteForgetsOneKey(t *testing.T) {
	m := New[int](10)
	m.Delete("never there") // on an empty map: no panic
	m.Put("a", 1)
	m.Put("b", 2)
	m.Delete("a")
	if _, ok := m.Get("a"); ok {
		t.Error("Delete kept the key")
	}
	if v, ok := m.Get("b"); !ok || v != 2 {
		t.Errorf("Delete dropped another key: Get(b) = %d, %v", v, ok)
	}
}
