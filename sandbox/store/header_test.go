package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// headerPrefixOf is the header value before the slot in the given format's spelling.
func headerPrefixOf(format string) string { return formatLead + format + slotLead }

// mustPatchedTransaction writes a transaction and then a change to it that is
// stored as a patch, and returns the transaction as changed.
func mustPatchedTransaction(t *testing.T, s *Store) sandbox.Transaction {
	t.Helper()
	before := adjustedSale("TRN_patched")
	after := cloneTransaction(before)
	after.GratuityAmount, after.AdjustmentCount = "300", 2
	mustChangeTransaction(t, s, before, after)
	if !mustHasKey(t, s, txnPatchPrefix+before.ID) {
		t.Fatal("the change was not written as a patch")
	}
	return after
}

// mustFormat1File writes a file as a format-1 sandbox with patches left it, every
// kind of record and a patched transaction, wiped once first when wiped is set (a
// format-1 header then follows the flushdb inside the file), closed cleanly or left
// in use as kill -9 leaves it; with grown set, mostly dead past 2 MiB, so that it is
// compacted as it opens. It returns the patched transaction.
func mustFormat1File(t *testing.T, path string, wiped, closed, grown bool) sandbox.Transaction {
	t.Helper()
	live := path + ".live"
	s := mustNeverCompacting(t, live)
	if wiped {
		mustPutAll(t, s)
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	}
	mustPutAll(t, s)
	patched := mustPatchedTransaction(t, s)
	if grown {
		mustGrowFile(t, s, 2<<20)
	}
	if closed {
		mustClose(t, s)
	}
	format2 := mustRead(t, live)
	format1 := bytes.ReplaceAll(format2, []byte(headerPrefix), []byte(headerPrefixOf("1")))
	if want := 1 + bytes.Count(format2, []byte("flushdb")); bytes.Count(format1, []byte(headerPrefixOf("1"))) != want {
		t.Fatalf("%d format-1 headers in the file, want %d", bytes.Count(format1, []byte(headerPrefixOf("1"))), want)
	}
	mustWrite(t, path, format1)
	return patched
}

func mustReadPatched(t *testing.T, s *Store, want sandbox.Transaction) {
	t.Helper()
	s.cache.Clear()
	mustHaveAll(t, s)
	mustView(t, s, func(tx sandbox.Tx) error {
		got, err := tx.Transaction(want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("patched transaction: %v\n got %+v\nwant %+v", err, got, want)
		}
		return nil
	})
}

// mustStartFormat2 checks that the file at path starts with the format-2 header,
// closed at its length when closed is set, in use otherwise.
func mustStartFormat2(t *testing.T, path string, closed bool) {
	t.Helper()
	b := mustRead(t, path)
	want := headerCommand(0)
	if closed {
		want = headerCommand(int64(len(b)))
	}
	if !bytes.HasPrefix(b, want) {
		t.Fatalf("file starts %q, want %q", b[:min(len(b), len(want))], want)
	}
}

// A format-1 file (one written before patches were told apart, patches included)
// opens and reads as it did; it says format 2 from the open on, before anything is
// written to it, so a binary that reads format 1 only refuses it from then on; and
// a compaction or a close keeps it format 2, a format-1 header left after a wipe
// included. The crash between the format's digit and the slot leaves either a
// format-2 file closed cleanly or a format-1 file in use: both cases are here.
func TestFormat1FileOpensAsFormat2(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		wiped, closed, grown bool
	}{
		{"closed cleanly", false, true, false},
		{"left in use by kill -9", false, false, false},
		{"wiped once, closed cleanly", true, true, false},
		{"wiped once, left in use", true, false, false},
		{"left in use mostly dead, compacted at open", false, false, true},
		{"wiped once, left in use mostly dead, compacted at open", true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			patched := mustFormat1File(t, path, tc.wiped, tc.closed, tc.grown)
			written := fileSize(path)
			s := mustNeverCompacting(t, path)
			mustStartFormat2(t, path, false)
			if compacted := fileSize(path) < written/4; compacted != tc.grown {
				t.Errorf("file of %d bytes after open (%d before): compacted %v, want %v", fileSize(path), written, compacted, tc.grown)
			}
			if b := mustRead(t, path); tc.grown && bytes.Contains(b, []byte(headerPrefixOf("1"))) {
				t.Error("a format-1 header is left in the file compacted at open")
			}
			if torn := s.TornWrite(); torn != nil {
				t.Errorf("TornWrite() = %+v, want none", torn)
			}
			mustReadPatched(t, s, patched)

			if err := s.db.Shrink(); err != nil {
				t.Fatal(err)
			}
			mustStartFormat2(t, path, false)
			if b := mustRead(t, path); bytes.Contains(b, []byte(headerPrefixOf("1"))) {
				t.Error("a format-1 header is left in the compacted file")
			}
			mustClose(t, s)
			mustStartFormat2(t, path, true)

			s = mustOpen(t, path)
			mustReadPatched(t, s, patched)
		})
	}
}

// mustRefuseNewer opens path, expects a *NewerFormatError naming the file and
// format, and checks the file was left byte for byte as it was; so does Salvage,
// which writes nothing.
func mustRefuseNewer(t *testing.T, path string, format int) {
	t.Helper()
	before, err := mustOpenFail(t, path)
	var newer *NewerFormatError
	if !errors.As(err, &newer) || newer.Path != path || newer.Format != format {
		t.Fatalf("Open: %v, want a *NewerFormatError for %s, format %d", err, path, format)
	}
	for _, want := range []string{path, "written by a newer gp-sandbox", "database format " + strconv.Itoa(format), "this binary reads formats 1 and 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	dst := path + ".repaired"
	if _, err := Salvage(path, dst); !errors.As(err, &newer) {
		t.Errorf("Salvage: %v, want a *NewerFormatError", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Salvage wrote %s: %v", dst, err)
	}
	mustUnchanged(t, path, before)
}

// A file of a later format than this binary reads is refused, named, and left as
// it is, whether it lays its header out as format 2 does or not; closed cleanly or
// left in use.
func TestNewerFormatRefusedUntouched(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean")
	mustClosedFile(t, clean, 20)
	good := mustRead(t, clean)
	inUse := bytes.Replace(good, headerCommand(int64(len(good))), headerCommand(0), 1)
	for _, tc := range []struct {
		name    string
		content []byte
		format  int
	}{
		{"format 3, closed cleanly", bytes.Replace(good, []byte(headerPrefix), []byte(headerPrefixOf("3")), 1), 3},
		{"format 3, in use", bytes.Replace(inUse, []byte(headerPrefix), []byte(headerPrefixOf("3")), 1), 3},
		{"format 12, a longer header", append(appendCommand(nil, "set", headerKey, headerPrefixOf("12")+strings.Repeat("0", slotDigits)), good[len(headerCommand(0)):]...), 12},
		{"format 3, a header laid out anew", appendCommand(nil, "set", headerKey, formatLead+"3; something else"), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			mustWrite(t, path, tc.content)
			mustRefuseNewer(t, path, tc.format)
		})
	}
}

// Headers of no format this binary knows, older or malformed, are not a sandbox's.
func TestUnknownFormatsRefusedUntouched(t *testing.T) {
	for name, value := range map[string]string{
		"format 0":             headerPrefixOf("0") + strings.Repeat("0", slotDigits),
		"no format number":     headerPrefixOf("") + strings.Repeat("0", slotDigits),
		"a slot cut short":     headerPrefixOf("2") + strings.Repeat("0", slotDigits-1),
		"a letter in the slot": headerPrefixOf("1") + strings.Repeat("0", slotDigits-1) + "x",
		"another text after":   formatLead + "2; opened at byte " + strings.Repeat("0", slotDigits),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			mustWrite(t, path, appendCommand(nil, "set", headerKey, value))
			if d := mustRefuse(t, path, 0); !strings.Contains(d.Reason, "not a gp-sandbox database") {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}

// The format-1 header may follow a flushdb in a file whose first header says
// format 2; no other header may, nor a header of a later format.
func TestLaterHeaders(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{headerValue(0), true},
		{headerPrefixOf("1") + strings.Repeat("0", slotDigits), true},
		{headerPrefixOf("3") + strings.Repeat("0", slotDigits), false},
		{headerValue(42), false},
	} {
		if got := validLaterHeader([]byte(tc.value)); got != tc.ok {
			t.Errorf("validLaterHeader(%q) = %v, want %v", tc.value, got, tc.ok)
		}
	}
}
