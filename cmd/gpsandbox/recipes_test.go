package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Testcontainers recipes (TESTCONTAINERS.md) are the code .ci/testcontainers-check
// runs.

// region is what TESTCONTAINERS.md shows of a recipe file: the lines between
// "[recipe]" and "[/recipe]" markers, without the lines marked "[check]" (which only
// the check needs), outer blank lines trimmed and the common indentation removed.
func region(text string) string {
	var lines []string
	inside := false
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.Contains(line, "[/recipe]"):
			inside = false
		case strings.Contains(line, "[recipe]"):
			inside = true
		case inside && !strings.Contains(line, "[check]"):
			lines = append(lines, line)
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}

// TestTestcontainersRecipesAreTheCheckedCode: every recipe in the document is, word for
// word, the code .ci/testcontainers-check runs.
func TestTestcontainersRecipesAreTheCheckedCode(t *testing.T) {
	doc, err := os.ReadFile("TESTCONTAINERS.md")
	if err != nil {
		t.Fatal(err)
	}
	for lang, file := range map[string]string{
		"js":     "node/recipe.test.js",
		"go":     "go/recipe_test.go",
		"python": "python/test_recipe.py",
		"java":   "java/src/test/java/sandbox/SandboxContainerTest.java",
	} {
		src, err := os.ReadFile(filepath.Join("..", "..", ".ci", "testcontainers", file))
		if err != nil {
			t.Fatal(err)
		}
		r := region(string(src))
		if strings.Count(r, "\n") < 10 {
			t.Errorf("%s: the recipe region is too short to be the recipe:\n%s", file, r)
		}
		if block := "```" + lang + "\n" + r + "\n```"; !strings.Contains(string(doc), block) {
			t.Errorf("TESTCONTAINERS.md does not show %s as it is run; it should hold:\n%s", file, block)
		}
	}
}
