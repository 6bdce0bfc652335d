package ui_test

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestDocsShowEveryView: the documentation shows one screenshot per view of the
// inspector's navigation, no more, no fewer; the browser tests write them with
// -docs-screenshots.
func TestDocsShowEveryView(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("assets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	var views []string
	for _, m := range regexp.MustCompile(`data-view="([a-z]+)"`).FindAllSubmatch(page, -1) {
		views = append(views, string(m[1]))
	}
	if len(views) == 0 {
		t.Fatal("index.html names no view")
	}
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, m := range regexp.MustCompile(`!\[[^\]]*\]\(ui/docs/([a-z]+)\.png\)`).FindAllSubmatch(doc, -1) {
		shown = append(shown, string(m[1]))
	}
	if !slices.Equal(shown, views) {
		t.Errorf("the admin README shows the screenshots %v, the inspector's views are %v", shown, views)
	}
	for _, v := range views {
		if _, err := os.Stat("docs/" + v + ".png"); err != nil {
			t.Errorf("no screenshot of the %s view: %v", v, err)
		}
	}
}
