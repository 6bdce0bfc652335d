package carddata

// Card numbers in ids, references, URLs and the like, which are shown as sent but for
// a card number standing whole in them.

// maskIdentifier masks an id, a reference or a URL, which is shown as sent but for
// a card number standing whole in it: 12 to 19 digits numbered as cards are (see
// cardLike), in one group or in the groups cards print (4 4 4 4, 4 4 4 4 3, 4 6 5,
// 4 6 4), parted from other digits by separators or by anything else
// (INV-4263970000005262, https://host:8080/4263970000005262, 2024 4263 9700 0000
// 5262). Unlike free text, a group is not searched for a card number inside it, so
// an ARN (23 digits) or a numeric reference of 20 digits reads as written, and groups
// parted otherwise (a date and a counter, 2024-12-05-0001) are no card number; nor is
// a UUID. A card number written with URL escapes is read unescaped too. Track data
// is [REDACTED] wherever it is.
func maskIdentifier(v string) string {
	return maskEachLevel(v, func(s string) string { return maskIdentifierAsWritten(withoutTracks(s)) })
}

// IdentifierHoldsCardNumber reports whether an id, a reference or a URL holds a card
// number that MaskJSON would mask where it shows it: a record id that does is refused,
// since the inspector links to records by the ids it shows.
func IdentifierHoldsCardNumber(id string) bool { return maskIdentifier(id) != id }

// maskIdentifierAsWritten is maskIdentifier of v read as it is written.
func maskIdentifierAsWritten(v string) string {
	var out []byte
	kept := 0 // v[:kept] is in out, or out is nil and nothing was masked
	for i := 0; i < len(v); {
		if n := uuidAt(v, i); n > 0 {
			i += n // a UUID is an id, as in free text
			continue
		}
		run, end := digitRunAt(v, i)
		if run == nil {
			i = end
			continue
		}
		if hidden := run.hidden(); hidden != nil {
			out = append(out, v[kept:i]...)
			out = append(out, run.masked(v[i:end], i, hidden)...)
			kept = end
		}
		i = end
	}
	if out == nil {
		return v
	}
	return string(append(out, v[kept:]...))
}

// digitRun is a run of digits and separators: its digits, and where each group of
// digits (as separators part them) starts among them.
type digitRun struct {
	digits []cardDigit
	groups []int // index in digits of each group's first digit
}

// digitRunAt reads the run starting at v[i] and returns it with where it ends; a run
// with fewer digits than a card number has (or no run: v[i] is no digit) is nil, read
// without a byte allocated.
func digitRunAt(v string, i int) (*digitRun, int) {
	n, end := 0, i
	for j := i; j < len(v); {
		r, size := runeAt(v, j)
		_, digit := digitValue(r)
		if !digit && (j == i || !isCardSeparator(r)) {
			break
		}
		if digit {
			n, end = n+1, j+size
		}
		j += size
	}
	if n == 0 {
		_, size := runeAt(v, i)
		return nil, i + size
	}
	if n < minCardDigits {
		return nil, end
	}
	run := &digitRun{digits: make([]cardDigit, 0, n)}
	for j := i; j < end; {
		r, size := runeAt(v, j)
		if d, digit := digitValue(r); digit {
			if len(run.digits) == 0 || run.digits[len(run.digits)-1].end != j {
				run.groups = append(run.groups, len(run.digits))
			}
			run.digits = append(run.digits, cardDigit{start: j, end: j + size, value: d})
		}
		j += size
	}
	return run, end
}

// groupSize is the number of digits of group k.
func (run *digitRun) groupSize(k int) int {
	next := len(run.digits)
	if k+1 < len(run.groups) {
		next = run.groups[k+1]
	}
	return next - run.groups[k]
}

// hidden marks the digits masking hides: the middle digits (all but the first six and
// the last four) of every card number among consecutive groups of the run, those
// that overlap included, so that none is left readable beside another. nil when the
// run holds none. A card number spans five groups at most, so the search is linear.
func (run *digitRun) hidden() []bool {
	var hidden []bool
	for a := range run.groups {
		for b := a; b < len(run.groups) && b < a+5; b++ {
			if !run.cardLayout(a, b) {
				continue
			}
			first, end := run.groups[a], run.groups[b]+run.groupSize(b)
			if !cardLike(run.digits[first:end]) {
				continue
			}
			if hidden == nil {
				hidden = make([]bool, len(run.digits))
			}
			for k := first + 6; k < end-4; k++ {
				hidden[k] = true
			}
		}
	}
	return hidden
}

// cardLayout reports whether groups a to b are laid out as a card number is
// printed: one group, groups of four with a last of one to four, or 4 6 5 and 4 6 4.
func (run *digitRun) cardLayout(a, b int) bool {
	switch {
	case a == b:
		return true
	case b == a+2 && run.groupSize(a) == 4 && run.groupSize(a+1) == 6 && (run.groupSize(b) == 5 || run.groupSize(b) == 4):
		return true // Amex, Diners
	}
	for k := a; k < b; k++ {
		if run.groupSize(k) != 4 {
			return false
		}
	}
	return run.groupSize(b) <= 4
}

// cardLike reports whether digits are a card number as cards are numbered: 12 to 19
// digits passing the Luhn check, starting as the networks' numbers do (2221 to 2720,
// or 3, 4, 5 or 6). A millisecond timestamp (17…) or a date (20…) is none, though a
// tenth of them pass the check.
func cardLike(digits []cardDigit) bool {
	if len(digits) < minCardDigits || len(digits) > maxCardDigits {
		return false
	}
	switch first := digits[0].value; {
	case first >= 3 && first <= 6:
	case first == 2:
		prefix := 0
		for _, d := range digits[:4] {
			prefix = prefix*10 + d.value
		}
		if prefix < 2221 || prefix > 2720 {
			return false
		}
	default:
		return false
	}
	var scan cardScan // the Luhn check as free text reads it
	var lengths uint32
	for _, d := range digits {
		lengths = scan.add(d)
	}
	return lengths&(1<<len(digits)) != 0
}

// masked is the text of the run, starting at byte offset in the identifier, with
// its hidden digits as *.
func (run *digitRun) masked(text string, offset int, hidden []bool) []byte {
	out := make([]byte, 0, len(text))
	from := 0
	for k, d := range run.digits {
		if !hidden[k] {
			continue
		}
		out = append(out, text[from:d.start-offset]...)
		out = append(out, maskChar)
		from = d.end - offset
	}
	return append(out, text[from:]...)
}
