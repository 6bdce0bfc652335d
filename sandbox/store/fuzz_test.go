package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpenFile opens arbitrary file contents: no panic, and a refused file is left
// byte for byte as it was.
func FuzzOpenFile(f *testing.F) {
	f.Add([]byte(markCommand))
	f.Add([]byte(markCommand + "*3\r\n$3\r\nset\r\n$6\r\nmeta:a\r\n$2\r\n\"\"\r\n*2\r\n$3\r\ndel\r\n$6\r\nmeta:a\r\n"))
	f.Add([]byte(markCommand + "*1\r\n$7\r\nflushdb\r\n\x00\x00*3\r\n$3\r\nset"))
	f.Add([]byte("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		path := filepath.Join(t.TempDir(), "db")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path)
		var damaged *DamagedError
		if errors.As(err, &damaged) {
			if after, _ := os.ReadFile(path); !bytes.Equal(after, content) {
				t.Fatalf("refused (%v), but the file changed", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}
