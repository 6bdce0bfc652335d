package yamlfile

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// LoadFixtures reads the seed data from every *.yaml and *.yml file at the root of
// fsys, in name order (files whose name starts with "." are skipped). A file may hold
// several YAML documents or none. Each document may have the lists apps, merchants,
// pricing_profiles and transactions; ids must be unique across all files and
// references (an app's merchants, a transaction's merchant, a merchant's pricing
// profile) must name records loaded from any of the files.
//
// A relative time (now-7d) of a merchant, an account, a deposit or a dispute counts
// from now, the sandbox clock's time when the fixtures are read.
//
// When anything is wrong the error is Problems, listing every problem found with its
// file, line and column, in file and position order. Problem.File is the name within
// fsys: a caller reading a directory prefixes it. Other errors mean fsys itself could
// not be listed.
func LoadFixtures(fsys fs.FS, now time.Time) (sandbox.Fixtures, error) {
	l, err := loadFixtures(fsys, now)
	if err != nil {
		return sandbox.Fixtures{}, err
	}
	return l.fixtures, nil
}

// ScenarioBinding is one scenario name listed by a fixture record (app, merchant or
// transaction), with where it is written. Scenario names are not checked here: the
// scenario package knows which exist and reports unknown ones with b.Problem.
type ScenarioBinding struct {
	File      string
	Line, Col int
	Kind      string // "app", "merchant" or "transaction"
	ID        string // the record's id
	Scenario  string
}

// Problem returns a problem at the binding's position.
func (b ScenarioBinding) Problem(message string) Problem {
	return Problem{File: b.File, Line: b.Line, Col: b.Col, Message: message}
}

// LoadFixturesWithBindings loads the fixtures in fsys as LoadFixtures does and also
// returns every scenario name their records list, in file order, so that a caller can
// check them against the scenarios without reading the files twice.
func LoadFixturesWithBindings(fsys fs.FS, now time.Time) (sandbox.Fixtures, []ScenarioBinding, error) {
	l, err := loadFixtures(fsys, now)
	if err != nil {
		return sandbox.Fixtures{}, nil, err
	}
	return l.fixtures, l.bindings, nil
}

// DecodeTransaction decodes and validates one transaction written as a single YAML (or
// JSON) document with the keys of a fixtures transactions item, by the same rules as
// LoadFixtures except that its merchant is not looked up. name is the file name the
// problems carry. The error, if any, is Problems.
func DecodeTransaction(data []byte, name string) (sandbox.Transaction, error) {
	return decodeTransaction(data, name, false)
}

// DecodeTransactionSeed is DecodeTransaction for a document that may leave any key
// out: every key given is checked as in a fixture, and a key left out is left zero
// in the transaction (Service.SeedTransaction gives it its default).
func DecodeTransactionSeed(data []byte, name string) (sandbox.Transaction, error) {
	return decodeTransaction(data, name, true)
}

func decodeTransaction(data []byte, name string, partial bool) (sandbox.Transaction, error) {
	roots, problems := documents(name, data)
	if len(problems) == 0 && len(roots) == 0 {
		problems = append(problems, Problem{File: name, Message: "no transaction: the document is empty"})
	}
	if len(roots) > 1 {
		problems = append(problems, Problem{File: name, Line: roots[1].Line, Col: roots[1].Column,
			Message: "expected one transaction document, found a second one"})
	}
	var t transactionDoc
	if len(roots) > 0 {
		d := newDecoder(name)
		d.partial = partial
		d.decode(roots[0], "", &t)
		checkTransaction(d, &t)
		problems = append(problems, d.problems...)
	}
	if err := problems.err(); err != nil {
		return sandbox.Transaction{}, err
	}
	tr := t.toDomain()
	if partial && t.Action == nil {
		tr.Action = sandbox.Action{} // the seed's action is made when it is stored
	}
	return tr, nil
}

// checkTransaction adds the rules that involve several fields of a transaction.
func checkTransaction(d *decoder, t *transactionDoc) {
	if t.BatchClosed && t.BatchID == "" {
		if l, ok := d.at(&t.BatchClosed); ok {
			d.addf(l.node, l.path, "a closed batch needs a batch_id")
		}
	}
}

// site is where a value was written, kept after its decoder is gone for the checks
// that need every file: duplicates and references.
type site struct {
	file      string
	line, col int
	path      string
}

func (s site) problemf(format string, args ...any) Problem {
	msg := fmt.Sprintf(format, args...)
	if s.path != "" {
		msg = s.path + ": " + msg
	}
	return Problem{File: s.file, Line: s.line, Col: s.col, Message: msg}
}

func (s site) String() string { return fmt.Sprintf("%s:%d:%d", s.file, s.line, s.col) }

// reference is a record's mention of another record, checked once all files are read.
type reference struct {
	kind, id string
	at       site
}

// fixturesLoader accumulates the records, problems and cross-file facts of a fixture set.
type fixturesLoader struct {
	now      time.Time // what a relative time (now-7d) counts from
	fixtures sandbox.Fixtures
	bindings []ScenarioBinding
	problems Problems
	defined  map[string]map[string]site // kind -> id -> where it was first defined
	refs     []reference
}

func loadFixtures(fsys fs.FS, now time.Time) (*fixturesLoader, error) {
	l := &fixturesLoader{now: now, defined: map[string]map[string]site{}}
	if err := eachYAMLFile(fsys, "fixture", fileLimits{}, &l.problems, l.file); err != nil {
		return nil, err
	}
	for _, r := range l.refs {
		if _, ok := l.defined[r.kind][r.id]; !ok {
			l.problems = append(l.problems, r.at.problemf("unknown %s %q", r.kind, carddata.Excerpt(r.id)))
		}
	}
	if err := l.problems.err(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *fixturesLoader) file(name string, data []byte) {
	roots, problems := documents(name, data)
	l.problems = append(l.problems, problems...)
	d := newDecoder(name)
	for _, root := range roots {
		doc := new(fixturesDoc)
		d.decode(root, "", doc)
		l.collect(d, doc)
	}
	l.problems = append(l.problems, d.problems...)
}

// collect adds a decoded document's records and notes their ids, references and
// scenario names.
func (l *fixturesLoader) collect(d *decoder, doc *fixturesDoc) {
	for i := range doc.PricingProfiles {
		p := &doc.PricingProfiles[i]
		l.define(d, "pricing profile", "name", p.Name, &p.Name)
		l.fixtures.PricingProfiles = append(l.fixtures.PricingProfiles, p.toDomain())
	}
	for i := range doc.Merchants {
		m := &doc.Merchants[i]
		l.define(d, "merchant", "id", string(m.ID), &m.ID)
		l.refer(d, "pricing profile", m.PricingProfile, &m.PricingProfile)
		l.bind(d, "merchant", string(m.ID), m.Scenarios)
		accounts := make([]sandbox.MerchantAccount, len(m.Accounts))
		for j := range m.Accounts {
			a := &m.Accounts[j]
			l.define(d, "account", "id", string(a.ID), &a.ID)
			accounts[j] = a.toDomain(string(m.ID), l.now)
		}
		merchant := m.toDomain(l.now, accounts)
		l.fixtures.Merchants = append(l.fixtures.Merchants, merchant)
		boarded := merchant.Profile().TimeCreated
		for j, account := range accounts {
			if account.TimeCreated.IsZero() {
				account.TimeCreated = boarded // opened with its merchant
			}
			l.notBefore(d, &m.Accounts[j].TimeCreated, account.TimeCreated, boarded, "the merchant's time_created")
			l.fixtures.Accounts = append(l.fixtures.Accounts, account)
		}
	}
	for i := range doc.Apps {
		a := &doc.Apps[i]
		l.define(d, "app", "id", string(a.ID), &a.ID)
		l.refer(d, "merchant", string(a.MerchantID), &a.MerchantID)
		for j := range a.Merchants {
			l.refer(d, "merchant", string(a.Merchants[j]), &a.Merchants[j])
		}
		l.bind(d, "app", string(a.ID), a.Scenarios)
		l.fixtures.Apps = append(l.fixtures.Apps, a.toDomain())
	}
	for i := range doc.Transactions {
		t := &doc.Transactions[i]
		l.define(d, "transaction", "id", string(t.ID), &t.ID)
		l.refer(d, "merchant", string(t.MerchantID), &t.MerchantID)
		checkTransaction(d, t)
		l.bind(d, "transaction", string(t.ID), t.Scenarios)
		l.fixtures.Transactions = append(l.fixtures.Transactions, t.toDomain())
	}
	for i := range doc.Devices {
		dv := &doc.Devices[i]
		l.define(d, "device", "id", string(dv.ID), &dv.ID)
		l.refer(d, "merchant", string(dv.MerchantID), &dv.MerchantID)
		l.fixtures.Devices = append(l.fixtures.Devices, dv.toDomain())
	}
	l.collectSettlement(d, doc)
	l.collectActions(d, doc)
}

// site returns where the value ptr points to was written.
func (l *fixturesLoader) site(d *decoder, ptr any) site {
	loc, ok := d.at(ptr)
	if !ok {
		return site{file: d.file}
	}
	return site{file: d.file, line: loc.node.Line, col: loc.node.Column, path: loc.path}
}

// define records that a kind of record with this id exists, reporting a duplicate.
// An empty id was already reported as missing.
func (l *fixturesLoader) define(d *decoder, kind, key, id string, ptr any) {
	if id == "" {
		return
	}
	at := l.site(d, ptr)
	if l.defined[kind] == nil {
		l.defined[kind] = map[string]site{}
	}
	if first, dup := l.defined[kind][id]; dup {
		l.problems = append(l.problems, at.problemf("duplicate %s %s %q (first defined at %s)", kind, key, carddata.Excerpt(id), first))
		return
	}
	l.defined[kind][id] = at
}

// notBefore reports a time, at ptr, that comes before the time it follows (named by
// what): an account made before its merchant, a dispute staged before it was opened.
// Either time unset (zero) is no problem; a malformed one is reported where written.
func (l *fixturesLoader) notBefore(d *decoder, ptr any, t, follows time.Time, what string) {
	if !t.IsZero() && !follows.IsZero() && t.Before(follows) {
		l.problems = append(l.problems, l.site(d, ptr).problemf("%s is before %s, %s",
			sandbox.FormatTime(t), what, sandbox.FormatTime(follows)))
	}
}

// refer notes that a record names another one; empty means none.
func (l *fixturesLoader) refer(d *decoder, kind, id string, ptr any) {
	if id != "" {
		l.refs = append(l.refs, reference{kind: kind, id: id, at: l.site(d, ptr)})
	}
}

func (l *fixturesLoader) bind(d *decoder, kind, id string, scenarios []string) {
	for i := range scenarios {
		at := l.site(d, &scenarios[i])
		l.bindings = append(l.bindings, ScenarioBinding{
			File: at.file, Line: at.line, Col: at.col, Kind: kind, ID: id, Scenario: scenarios[i],
		})
	}
}
