package admin

// WithoutToken is the journal's redaction of an answer's token.
var WithoutToken = withoutToken

// ChecklistItem is an item of the coverage checklist, as the code states it.
type ChecklistItem struct{ ID, Group, Title, By, Source string }

// Checklist is the coverage checklist in its order: what the report names its items
// by, and what README.md lists.
func Checklist() []ChecklistItem {
	out := make([]ChecklistItem, 0, len(checklist))
	for _, it := range checklist {
		out = append(out, ChecklistItem{ID: it.ID, Group: it.Group, Title: it.Title, By: it.By, Source: it.Source})
	}
	return out
}
