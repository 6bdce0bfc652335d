package api

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// queryReader reads a list's query string, for every reporting and list endpoint: a
// parameter with a value it cannot have is 40213 naming it [SB], and the first such
// problem is the error. Parameters it is not asked for are ignored, as GP's reporting
// endpoints ignore the SDKs' empty ones. Defaults are the caller's (paging's are the
// first page of defaultPageSize records, in the order the caller names): a reader
// only replaces what the query names.
type queryReader struct {
	v   url.Values
	err error
}

func newQueryReader(c *call) (*queryReader, error) {
	v, err := web.Query(c.r)
	return &queryReader{v: v}, err
}

// fail keeps the first problem.
func (r *queryReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *queryReader) invalid(name string) { r.fail(sandbox.InvalidField(name)) }

// number reads an integer 1..max.
func (r *queryReader) number(name string, dst *int, max int) {
	if s := r.v.Get(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > max {
			r.invalid(name)
			return
		}
		*dst = n
	}
}

// date reads a YYYY-MM-DD date.
func (r *queryReader) date(name string, dst *time.Time) {
	if s := r.v.Get(name); s != "" {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			r.invalid(name)
			return
		}
		*dst = t
	}
}

// shaped refuses a value valid says it cannot be; the value itself is read by the
// caller.
func (r *queryReader) shaped(name string, valid func(string) bool) {
	if s := r.v.Get(name); s != "" && !valid(s) {
		r.invalid(name)
	}
}

// choice reads one of values.
func (r *queryReader) choice(name string, dst *string, values ...string) {
	if s := r.v.Get(name); s != "" {
		if !slices.Contains(values, s) {
			r.invalid(name)
			return
		}
		*dst = s
	}
}

// text reads free text of at most maxHeaderValue characters [GP: 1..50].
func (r *queryReader) text(name string, dst *string) {
	if s := r.v.Get(name); s != "" {
		if len(s) > maxHeaderValue || !web.ValidText(s) {
			r.invalid(name)
			return
		}
		*dst = s
	}
}

// paging reads page, page_size, order_by (one of orderings) and order: by default
// the first page of defaultPageSize records, ordered by orderBy in order.
func (r *queryReader) paging(orderBy, order string, orderings ...string) sandbox.Paging {
	p := sandbox.Paging{PageSize: defaultPageSize, Page: 1, Order: order, OrderBy: orderBy}
	r.number("page", &p.Page, 1_000_000)
	r.number("page_size", &p.PageSize, maxPageSize)
	r.choice("order_by", &p.OrderBy, orderings...)
	r.choice("order", &p.Order, "ASC", "DESC")
	return p
}

// system reads the settlement filters system.mid and system.hierarchy. A mid is
// digits, as GP's are, or a merchant id as the sandbox answers it in system.mid
// (A129); a hierarchy is GP's 000-00-000-000-000. Others are GP's 40090 and 40105.
func (r *queryReader) system(mid, hierarchy *string) {
	*mid, *hierarchy = r.v.Get("system.mid"), r.v.Get("system.hierarchy")
	if *mid != "" && !systemMIDPattern.MatchString(*mid) {
		r.fail(sandbox.InvalidSystemMID())
	}
	if *hierarchy != "" && !systemHierarchyPattern.MatchString(*hierarchy) {
		r.fail(sandbox.InvalidSystemHierarchy())
	}
}

var (
	systemMIDPattern       = regexp.MustCompile(`^(?:[0-9]{1,50}|MER_[0-9A-Za-z]{1,46})$`)
	systemHierarchyPattern = regexp.MustCompile(`^[0-9]{3}-[0-9]{2}-[0-9]{3}-[0-9]{3}-[0-9]{3}$`)
)

// account checks account_name and account_id, which the SDKs send from the token's
// data account: one the app does not hold is GP's 40003.
func (r *queryReader) account(app sandbox.App) {
	name, id := r.v.Get("account_name"), r.v.Get("account_id")
	if name == "" && id == "" {
		return
	}
	if !slices.ContainsFunc(app.Accounts, func(a sandbox.Account) bool {
		return (name == "" || a.Name == name) && (id == "" || a.ID == id)
	}) {
		r.fail(sandbox.AccountNotMatched())
	}
}
