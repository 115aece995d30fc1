package perturb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// marked returns the words of q for which f is true.
func marked(q string, f func(words []word) []bool) []string {
	words := splitWords(q)
	var out []string
	for i, m := range f(words) {
		if m {
			out = append(out, words[i].text)
		}
	}
	return out
}

func TestCodeLike(t *testing.T) {
	f := func(q string, want ...string) {
		t.Helper()
		got := marked(q, func(words []word) []bool {
			out := make([]bool, len(words))
			for i, w := range words {
				out[i] = codeLike(q, w)
			}
			return out
		})
		if !slices.Equal(got, want) {
			t.Errorf("codeLike in %q = %q, want %q", q, got, want)
		}
	}
	f("What does apt read in apt.conf now?", "apt", "conf")
	f("Which files does it use --complement with?", "complement")
	f("What does pam_cracklib check in GtkWindow?", "pam_cracklib", "GtkWindow")
	f("What does the command-line tool write to files.", "command-line")
	f("What does grep read from /etc/passwd and x=y?", "etc", "passwd", "x", "y")
}

func TestInQuotes(t *testing.T) {
	f := func(q string, want ...string) {
		t.Helper()
		got := marked(q, func(words []word) []bool { return inQuotes(q, words) })
		if !slices.Equal(got, want) {
			t.Errorf("inQuotes in %q = %q, want %q", q, got, want)
		}
	}
	f(`In coreutils 9.1, what does 'id xyz' now use?`, "id", "xyz")
	f("What does `man -a` detect?", "man", "a")
	f(`What does the “Quick Start” page say?`, "Quick", "Start")
	f(`What does "Getting started" cover?`, "Getting", "started")
	// Apostrophes open nothing.
	f("What's the staff's usual tool, and why isn't it used?")
}

func TestSubjectWords(t *testing.T) {
	wn := wordNetOrSkip(t)
	if err := wn.Available(); err != nil {
		t.Skip(err)
	}
	f := func(q string, want ...string) {
		t.Helper()
		words := splitWords(q)
		got := marked(q, func(words []word) []bool { return wn.subjectWords(words, wordTags(q, words)) })
		if !slices.Equal(got, want) {
			t.Errorf("subject of %q = %q, want %q", q, got, want)
		}
		_ = words
	}
	f("What does the timeout command now accept?", "the", "timeout", "command")
	f("Which option does the timeout command now accept?", "the", "timeout", "command")
	f("How many bit RSA keys does GPG generate as of November 2026?", "GPG")
	f("When was apt 2.4.0 released?", "apt", "2", "4", "0")
	f("What does the proposed password replace?", "the", "proposed", "password")
	// A verb before any auxiliary: the wh-phrase is the subject.
	f("Which release introduced the bug where the numbers were large?")
}

// TestWordNetMeaningRules checks the rules of synonym.go one by one on
// questions made for them, over many seeds.
func TestWordNetMeaningRules(t *testing.T) {
	wn := wordNetOrSkip(t)
	if err := wn.Available(); err != nil {
		t.Skip(err)
	}
	p := &Perturber{WordNet: wn}
	// outcomes returns the variants of q over 40 seeds, and whether some
	// seed found no candidate.
	outcomes := func(q string) (map[string]bool, bool) {
		vs, none := map[string]bool{}, false
		for i := range 40 {
			v, err := p.Query(KindWordNet, fmt.Sprint("seed", i), q, []string{"Northwind"})
			switch {
			case errors.Is(err, ErrNoCandidate):
				none = true
			case err != nil:
				t.Fatalf("%q: %v", q, err)
			default:
				vs[v] = true
			}
		}
		return vs, none
	}
	// A person as object points at another sense: employ = hire.
	if vs, _ := outcomes("How many people did Acme Corp employ in 2024?"); len(vs) > 0 {
		t.Errorf("employ with a person object got synonyms: %v", vs)
	}
	if vs, _ := outcomes("Which tools did Acme Corp employ in 2024?"); !vs["Which tools did Acme Corp use in 2024?"] {
		t.Errorf("employ with a thing object: %v, want \"use\"", vs)
	}
	// "number" is read as a noun first.
	if vs, _ := outcomes("What did the exports of Acme Corp total?"); vs["What did the exports of Acme Corp number?"] {
		t.Errorf("total → number: %v", vs)
	}
	// A term of software documents keeps its word.
	for v := range must(outcomes("Which tool will print the line?")) {
		if strings.Contains(v, "publish") {
			t.Errorf("print → publish: %q", v)
		}
	}
	// The article stays right: "an extra" never becomes "an surplus".
	if syns := wn.meaningSynonyms("extra", 2, "", false); !slices.Contains(syns, "surplus") {
		t.Logf("meaningSynonyms(extra) = %v: the article case is not exercised", syns)
	}
	for v := range must(outcomes("Which tool adds an extra blank line at the end?")) {
		if strings.Contains(v, "an surplus") {
			t.Errorf("article broken: %q", v)
		}
	}
	// After "does", the bare verb ending the clause is the main verb even
	// when the tagger reads a noun; the subject stays.
	vs, _ := outcomes("What does GnuTLS require as of November 2026?")
	if !vs["What does GnuTLS necessitate as of November 2026?"] {
		t.Errorf("main verb after does: %v, want require → necessitate", vs)
	}
	// The subject is kept, the verb after it changes.
	for v := range must(outcomes("What does the large server now use?")) {
		if !strings.HasPrefix(v, "What does the large server now ") {
			t.Errorf("subject changed: %q", v)
		}
	}
	// Compound prepositions stay whole.
	for v := range must(outcomes("What does the tool now use instead of locks?")) {
		if !strings.Contains(v, " instead of ") {
			t.Errorf("instead of changed: %q", v)
		}
	}
}

func must(vs map[string]bool, _ bool) map[string]bool { return vs }
