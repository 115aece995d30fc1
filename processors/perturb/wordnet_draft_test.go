package perturb

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestWordNetDraft is the tool that drafts the labelled sample, not a check:
// it runs only when ROBUSTREAM_WORDNET_QUESTIONS names a file of questions
// the engine generated, one JSON object a line with "corpus", "id",
// "question", "answer" and "aliases", in the order they were produced
// (docs/methods.md, Query perturbations, says how the sample's were
// dumped). It writes testdata/wordnet_questions.tsv.gz's rows to
// ROBUSTREAM_WORDNET_QUESTIONS_OUT, if set, and one unlabelled row of
// testdata/wordnet_meaning.tsv per distinct (question, variant) the current
// rules make to ROBUSTREAM_WORDNET_DRAFT (default: standard output), then
// logs how many questions got a variant. Labels are added by hand.
func TestWordNetDraft(t *testing.T) {
	path := os.Getenv("ROBUSTREAM_WORDNET_QUESTIONS")
	if path == "" {
		t.Skip("set ROBUSTREAM_WORDNET_QUESTIONS to a JSON-lines file of questions to draft a sample")
	}
	wn := wordNetOrSkip(t)
	p := &Perturber{WordNet: wn}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	create := func(env string, def *os.File) *os.File {
		dst := os.Getenv(env)
		if dst == "" {
			return def
		}
		out, err := os.Create(dst)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { out.Close() })
		return out
	}
	out := create("ROBUSTREAM_WORDNET_DRAFT", os.Stdout)
	qout := create("ROBUSTREAM_WORDNET_QUESTIONS_OUT", nil)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	questions, made := 0, 0
	reasons := map[string]int{}
	seen := map[[2]string]bool{}
	for sc.Scan() {
		var q struct {
			Corpus   string   `json:"corpus"`
			ID       string   `json:"id"`
			Question string   `json:"question"`
			Answer   string   `json:"answer"`
			Aliases  []string `json:"aliases"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		questions++
		accepted := append([]string{q.Answer}, q.Aliases...)
		acc, err := json.Marshal(accepted)
		if err != nil {
			t.Fatal(err)
		}
		if qout != nil {
			fmt.Fprintf(qout, "%s\t%s\t%s\t%s\n", q.Corpus, q.ID, tsvField(q.Question), acc)
		}
		v, err := p.Query(KindWordNet, q.ID, tsvField(q.Question), accepted)
		if err != nil {
			reasons[err.Error()]++
			if !errors.Is(err, ErrNoCandidate) && !errors.Is(err, ErrAnswerLeak) {
				t.Fatal(err)
			}
			continue
		}
		made++
		if k := [2]string{tsvField(q.Question), v}; !seen[k] {
			seen[k] = true
			fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%s\t\t\n", q.Corpus, q.ID, tsvField(q.Question), acc, v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d questions got a wordnet variant (%.1f%%); skipped: %v", made, questions, 100*float64(made)/float64(max(questions, 1)), reasons)
}

// tsvField keeps a value on one TSV field: tabs and line breaks become
// spaces.
func tsvField(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

// wordnetWhy says why word i of q gets no synonym, for TestWordNetDraft's
// diagnostics.
func (w *WordNet) wordnetWhy(qw *queryWords, i int) string {
	s := qw.synonymWords(w)
	word := qw.words[i].text
	switch {
	case qw.skip[i]:
		return "stopword/answer/digit/anchor"
	case s.keep[i]:
		return "kept (name, code, quote, subject)"
	case inCompound(s.tags, i):
		return "compound"
	case w.collocated(qw.text, qw.words, i):
		return "collocation"
	}
	p, infl, ok := posOf(s.tags[i])
	if !ok {
		return "tag " + s.tags[i]
	}
	lw := strings.ToLower(word)
	var base string
	for _, f := range w.baseForms(p, lw) {
		if (f == lw) == (infl == "") {
			base = f
			break
		}
	}
	switch {
	case base == "":
		return "no base form"
	case !w.usualFirst(p, base):
		return "first sense not usual"
	case w.technical(p, base):
		return "technical sense"
	case len(w.meaningSynonyms(word, p, infl, p == 1 && w.personObject(qw.words, s.tags, i))) == 0:
		return "no lemma qualifies"
	}
	return "ok"
}

func TestWordNetWhy(t *testing.T) {
	path := os.Getenv("ROBUSTREAM_WORDNET_QUESTIONS")
	if path == "" || os.Getenv("ROBUSTREAM_WORDNET_WHY") == "" {
		t.Skip("diagnostics")
	}
	wn := wordNetOrSkip(t)
	if err := wn.Available(); err != nil {
		t.Skip(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	why := map[string]int{}
	words := map[string]map[string]int{}
	for sc.Scan() {
		var q struct {
			ID, Question, Answer string
			Aliases              []string
		}
		json.Unmarshal(sc.Bytes(), &q)
		acc := append([]string{q.Answer}, q.Aliases...)
		qw := newQueryWords(q.Question, nil, acc)
		for i := range qw.words {
			r := wn.wordnetWhy(qw, i)
			why[r]++
			if words[r] == nil {
				words[r] = map[string]int{}
			}
			words[r][strings.ToLower(qw.words[i].text)+"/"+qw.synonymWords(wn).tags[i]]++
		}
	}
	for r, n := range why {
		type kv struct {
			k string
			v int
		}
		var top []kv
		for k, v := range words[r] {
			top = append(top, kv{k, v})
		}
		slices.SortFunc(top, func(a, b kv) int { return b.v - a.v })
		fmt.Printf("%6d %s: %v\n", n, r, top[:min(len(top), 40)])
	}
}
