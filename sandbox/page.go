package sandbox

import "slices"

// Paging is the page a list query asks for: Page (from 1) of PageSize records,
// ordered by OrderBy, ASC or DESC. Its members are in the order of the paging block
// a list answers, so that the API shows it by conversion.
type Paging struct {
	PageSize, Page int
	Order, OrderBy string
}

// sortedPage orders all by compare, reversed when p.Order is DESC, and returns p's
// page: what every back-office list answers.
func sortedPage[T any](all []T, compare func(a, b T) int, p Paging) []T {
	slices.SortStableFunc(all, func(a, b T) int {
		if p.Order == "DESC" {
			return compare(b, a)
		}
		return compare(a, b)
	})
	return pageOf(all, p)
}

// pageOf is p's page of all.
func pageOf[T any](all []T, p Paging) []T {
	start := (p.Page - 1) * p.PageSize
	if start >= len(all) || start < 0 {
		return []T{}
	}
	return all[start:min(start+p.PageSize, len(all))]
}
