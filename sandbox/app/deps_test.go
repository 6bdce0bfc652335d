package app_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gp-sandbox/gp-sandbox/"

// Dependencies point inward: app wires the sandbox's packages, only the command,
// sandboxtest and apitest (the API tests' sandbox; besides tests) build on app,
// gorilla/mux is imported by the two packages that register routes on the one router
// (api makes it and registers the GP API's, admin registers its own on it; web, which
// both share, routes nothing), the domain package speaks no HTTP, and
// the card-data masker, which every package uses, imports the standard library only.
func TestDependenciesPointInward(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		for _, imp := range mustImports(t, path) {
			if dir == "sandbox/app" && strings.HasPrefix(imp, module) && !allowedInApp(strings.TrimPrefix(imp, module)) {
				t.Errorf("%s imports %s: app builds on the sandbox's own packages only", path, imp)
			}
			if dir == "sandbox" && (imp == "net/http" || strings.HasPrefix(imp, "net/http/")) {
				t.Errorf("%s imports %s: the domain knows no HTTP; statuses and wire shapes live in its adapters", path, imp)
			}
			if dir == "sandbox/carddata" && strings.Contains(strings.Split(imp, "/")[0], ".") {
				t.Errorf("%s imports %s: the card-data masker is a leaf, standard library only", path, imp)
			}
			if imp == module+"sandbox/app" && !strings.HasPrefix(dir, "cmd/") && dir != "sandbox/sandboxtest" && dir != "sandbox/internal/apitest" {
				t.Errorf("%s imports sandbox/app: only the commands, sandboxtest and the API tests' apitest may", path)
			}
			if (dir == "sandbox/api" || dir == "sandbox/web") && imp == module+"sandbox/admin" ||
				dir == "sandbox/web" && imp == module+"sandbox/api" {
				t.Errorf("%s imports %s: admin builds on api, and both on web, never the other way", path, imp)
			}
			if imp == "github.com/gorilla/mux" && dir != "sandbox/api" && dir != "sandbox/admin" {
				t.Errorf("%s imports gorilla/mux: only the two APIs route, on the one router api.NewRouter makes", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func allowedInApp(pkg string) bool {
	switch pkg {
	case "sandbox", "sandbox/carddata", "sandbox/api", "sandbox/admin", "sandbox/web", "sandbox/store", "sandbox/scenario", "sandbox/notify",
		"sandbox/yamlfile", "fixtures", "scenarios":
		return true
	}
	return false
}

func mustImports(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		out = append(out, p)
	}
	return out
}
