package perturb

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/text"
)

// The functions below are the perturbations as first written, before the
// per-question work was shared between kinds and sentences. The faster code
// must give exactly their results; the tests compare both on the demo feed's
// questions and on every synset of the installed WordNet.

func referenceQuery(p *Perturber, kind, questionID, query string, accepted []string) (string, error) {
	words := splitWords(query)
	var change func(i int, rng *rand.Rand) (string, bool)
	var syn *synonymWords
	switch kind {
	case KindChar:
		change = func(i int, rng *rand.Rand) (string, bool) { return charChange(words[i].text, rng) }
	case KindQWERTY:
		change = func(i int, rng *rand.Rand) (string, bool) { return qwertyChange(words[i].text, rng) }
	case KindWordNet:
		if p.WordNet == nil {
			return "", fmt.Errorf("%w: no WordNet dictionary configured", ErrUnavailable)
		}
		if err := p.WordNet.Available(); err != nil {
			return "", err
		}
		// The meaning-preserving choice (synonym.go) is the reference
		// here: analysed per call, not shared between kinds.
		syn = p.WordNet.analyseSynonymWords(query, words)
		change = func(i int, rng *rand.Rand) (string, bool) {
			pos, infl, ok := posOf(syn.tags[i])
			if !ok {
				return "", false
			}
			syns := p.WordNet.meaningSynonyms(words[i].text, pos, infl, pos == 1 && p.WordNet.personObject(words, syn.tags, i))
			if i > 0 && (strings.EqualFold(words[i-1].text, "a") || strings.EqualFold(words[i-1].text, "an")) {
				syns = slices.DeleteFunc(slices.Clone(syns), func(x string) bool { return vowelSound(x) != vowelSound(words[i].text) })
			}
			if len(syns) == 0 {
				return "", false
			}
			return matchCase(words[i].text, syns[rng.IntN(len(syns))]), true
		}
	default:
		return "", fmt.Errorf("%w: %q", ErrUnknownKind, kind)
	}
	answer := answerWords(accepted)
	anchor := referenceAnchor(query)
	var eligible []int
	for i, w := range words {
		if isStopword(w.text) || isAnswerWord(w.text, answer) || w.start >= anchor || strings.ContainsAny(w.text, "0123456789") {
			continue
		}
		if kind == KindWordNet && !p.WordNet.synonymEligible(query, words, syn, i) {
			continue
		}
		eligible = append(eligible, i)
	}
	rng := NewRand(questionID, kind)
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })
	n := WordsToChange(len(words))
	repl := make(map[int]string, n)
	for _, i := range eligible {
		if len(repl) == n {
			break
		}
		if r, ok := change(i, rng); ok && r != words[i].text {
			repl[i] = r
		}
	}
	if len(repl) == 0 {
		return "", ErrNoCandidate
	}
	out := replaceWords(query, words, repl)
	if text.TokenSeq(out, accepted) && !text.TokenSeq(query, accepted) {
		return "", ErrAnswerLeak
	}
	return out, nil
}

func referenceRemoveAnswer(contexts, accepted []string) ([]string, error) {
	var out []string
	removed := false
	for _, c := range contexts {
		var b strings.Builder
		for _, s := range sentenceSpans(c) {
			if text.Covered(c[s[0]:s[1]], accepted) {
				removed = true
				continue
			}
			b.WriteString(c[s[0]:s[1]])
		}
		if kept := strings.TrimSpace(b.String()); kept != "" {
			out = append(out, kept)
		}
	}
	if !removed {
		return nil, ErrAnswerNotFound
	}
	if len(out) == 0 {
		return nil, ErrEmptyContext
	}
	for _, c := range out {
		if text.Covered(c, accepted) {
			return nil, ErrAnswerRemains
		}
	}
	return out, nil
}

func referenceReadIndex(path string) (map[string][]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := make(map[string][]int64)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 4 {
			return nil, fmt.Errorf("%s: malformed line %q", path, line)
		}
		n, err := strconv.Atoi(fs[2])
		if err != nil || n < 0 || n > len(fs)-4 {
			return nil, fmt.Errorf("%s: bad synset count in %q", path, line)
		}
		offs := make([]int64, 0, n)
		for _, s := range fs[len(fs)-n:] {
			o, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad offset in %q", path, line)
			}
			offs = append(offs, o)
		}
		m[fs[0]] = offs
	}
	return m, sc.Err()
}

func referenceLemmas(w *WordNet, p int, offset int64) []string {
	data := w.data[p]
	if offset < 0 || offset >= int64(len(data)) {
		return nil
	}
	line := data[offset:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fs := strings.Fields(string(line))
	if len(fs) < 4 {
		return nil
	}
	n, err := strconv.ParseInt(fs[3], 16, 32)
	if err != nil || 4+2*int(n) > len(fs) {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < int(n); i++ {
		l := fs[4+2*i]
		if j := strings.IndexByte(l, '('); j > 0 && strings.HasSuffix(l, ")") {
			l = l[:j]
		}
		out = append(out, l)
	}
	return out
}

// sameResult compares two (value, error) results, errors by message.
func sameResult[T any](a T, aerr error, b T, berr error) bool {
	if (aerr == nil) != (berr == nil) || aerr != nil && aerr.Error() != berr.Error() {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func TestQueryAndRemoveAnswerMatchReference(t *testing.T) {
	p := &Perturber{WordNet: NewWordNet("")}
	stage := mustStage(t, Config{WordNet: p.WordNet, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	qs := questionsOfDemo(t)
	extra := testQuestion()
	qs = append(qs[:len(qs):len(qs)], extra)
	counts := map[string]int{}
	for _, q := range qs {
		accepted := q.Accepted()
		for _, kind := range append(slices.Clone(QueryKinds), "shout") {
			got, gerr := p.Query(kind, q.QuestionID, q.Question, accepted)
			want, werr := referenceQuery(p, kind, q.QuestionID, q.Question, accepted)
			if !sameResult(got, gerr, want, werr) {
				t.Fatalf("Query(%s, %q, %q) = %q, %v; reference %q, %v", kind, q.QuestionID, q.Question, got, gerr, want, werr)
			}
			counts[kind+fmt.Sprint(gerr)]++
		}
		got, gerr := RemoveAnswer(q.GTChunks, accepted)
		want, werr := referenceRemoveAnswer(q.GTChunks, accepted)
		if !sameResult(got, gerr, want, werr) {
			t.Fatalf("RemoveAnswer(%q, %q) = %q, %v; reference %q, %v", q.GTChunks, accepted, got, gerr, want, werr)
		}
		counts["remove"+fmt.Sprint(gerr)]++

		// The stage shares the per-question work between kinds.
		var wantVariants, madeQueries []string
		for _, kind := range QueryKinds {
			if out, err := referenceQuery(p, kind, q.QuestionID, q.Question, accepted); err == nil {
				wantVariants = append(wantVariants, kind+"|"+out+"|"+strings.Join(q.GTChunks, "|"))
				madeQueries = append(madeQueries, kind+"|"+out)
			}
		}
		if ctxs, err := referenceRemoveAnswer(q.GTChunks, accepted); err == nil {
			wantVariants = append(wantVariants, KindAnswerRemoved+"|"+q.Question+"|"+strings.Join(ctxs, "|"))
			// The cross cells: each perturbed query over the
			// answer-removed contexts (RARE eq. 1).
			for _, made := range madeQueries {
				kind, out, _ := strings.Cut(made, "|")
				wantVariants = append(wantVariants, CrossKind(kind, KindAnswerRemoved)+"|"+out+"|"+strings.Join(ctxs, "|"))
			}
		}
		var gotVariants []string
		for _, v := range stage.Variants(q)[1:] {
			gotVariants = append(gotVariants, v.Kind+"|"+v.Query+"|"+strings.Join(v.Contexts, "|"))
		}
		if !slices.Equal(gotVariants, wantVariants) {
			t.Fatalf("Variants(%q):\n got %q\nwant %q", q.QuestionID, gotVariants, wantVariants)
		}
	}
	t.Logf("%d questions, outcomes %v", len(qs), counts)
}

// TestQueryMatchesReferenceEdgeCases covers what the demo questions lack:
// answers that leak, empty and punctuation-only answers, no words.
func TestQueryMatchesReferenceEdgeCases(t *testing.T) {
	p := &Perturber{WordNet: NewWordNet("")}
	queries := []string{"", "?", "What was Acme Corp's revenue in Q3 2025?", "Who bought the art gallery party venue?",
		"Is the answer yes or no?", "Où est l'hôtel de ville à Zürich?", "WHAT IS NORTHWIND'S CEO'S NAME?"}
	answers := [][]string{nil, {""}, {"."}, {"the"}, {"$4.2 billion", "4.2 billion dollars"}, {"art"}, {"yes"}, {"Zürich"}, {"Northwind"}}
	for _, q := range queries {
		for _, accepted := range answers {
			for i := range 20 {
				id := fmt.Sprint("q", i)
				for _, kind := range QueryKinds {
					got, gerr := p.Query(kind, id, q, accepted)
					want, werr := referenceQuery(p, kind, id, q, accepted)
					if !sameResult(got, gerr, want, werr) {
						t.Fatalf("Query(%s, %q, %q, %q) = %q, %v; reference %q, %v", kind, id, q, accepted, got, gerr, want, werr)
					}
				}
			}
			ctxs := []string{q, "Some context. " + q + " More text.\nAnd a line."}
			got, gerr := RemoveAnswer(ctxs, accepted)
			want, werr := referenceRemoveAnswer(ctxs, accepted)
			if !sameResult(got, gerr, want, werr) {
				t.Fatalf("RemoveAnswer(%q, %q) = %q, %v; reference %q, %v", ctxs, accepted, got, gerr, want, werr)
			}
		}
	}
}

func TestWordNetMatchesReference(t *testing.T) {
	w := wordNetOrSkip(t)
	if err := w.Available(); err != nil {
		t.Fatal(err)
	}
	for p, pos := range wordnetPOS {
		ref, err := referenceReadIndex(filepath.Join(w.dir, "index."+pos))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(w.index[p], ref) {
			t.Fatalf("index.%s differs from the reference parse", pos)
		}
		n := 0
		for _, offs := range ref {
			for _, off := range offs {
				if got, want := w.lemmas(p, off), referenceLemmas(w, p, off); !slices.Equal(got, want) {
					t.Fatalf("lemmas(%s, %d) = %q, reference %q", pos, off, got, want)
				}
				n++
			}
		}
		for _, off := range []int64{-1, 0, 1, 17, int64(len(w.data[p])) - 1, int64(len(w.data[p]))} {
			if got, want := w.lemmas(p, off), referenceLemmas(w, p, off); !slices.Equal(got, want) {
				t.Fatalf("lemmas(%s, %d) = %q, reference %q", pos, off, got, want)
			}
		}
		t.Logf("%s: %d lemmas, %d synset references", pos, len(ref), n)
	}
}

// TestReadIndexMatchesReference feeds both parsers malformed and unusual
// index files: errors must agree as well as maps.
func TestReadIndexMatchesReference(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		"",
		"  1 license line\n  2 another\n",
		"dog n 1 1 @ 1 0 02084071\n",
		"dog n 2 1 @ 2 0 02084071 10114209\r\ncat n 1 0 1 0 02121620\n",
		"dog\tn 1 1 @  1 0\t02084071 \n\n",
		"dog n 1\n",
		"dog n x 1 @ 1 0 02084071\n",
		"dog n 9 1 @ 1 0 02084071\n",
		"dog n -1 1 @ 1 0 02084071\n",
		"dog n 1 1 @ 1 0 0208x071\n",
		"dog n 1 1 @ 1 0 02084071\ndog n 1 1 @ 1 0 00000001\n",
		"caf\u00e9\u00a0n 1 1 @ 1 0 02084071\n",
		"dog\u2003n 1 1 @ 1 0 02084071\n",
		"dog n 1 1 @ 1 0 02084071",
		"x\xffy n 1 0 1 0 00000001\n",
		"dog n 0 0\n",
		strings.Repeat("z", 2<<20) + " n 1 0 1 0 1\n",
	}
	for i, content := range files {
		path := filepath.Join(dir, fmt.Sprint("index.", i))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, gerr := readIndex(path)
		want, werr := referenceReadIndex(path)
		if !sameResult(got, gerr, want, werr) {
			t.Errorf("file %d %.60q: readIndex = %v, %v; reference %v, %v", i, content, got, gerr, want, werr)
		}
	}
	if _, err := readIndex(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// fragments build contexts that stress sentence splitting and normalization
// at sentence boundaries: abbreviations, initials, closing quotes, wrapped
// and blank lines, Unicode spaces, articles, answer parts and invalid UTF-8.
var fragments = []string{
	"Revenue was $4.2 billion", "4.2", "billion", " dollars", "The", " the", " a", "art", " party", "Dr.", " J.", " Smith",
	"Corp.", " Inc.", ".", "!", "?", "\"", "'", ")", "”", " ", "  ", "\n", "\n\n", "\r\n", "\t", "\u00a0", "\u2003",
	"x", "big", " Zed", "answer", "Alpha is big.", " Beta holds the answer.", " Zed is small.", "é", "\u0301", "\xff",
	"| Q3 | 4.2 |", "# Heading", "e.g.", " no.", ",", "1", "ß", "İ",
}

func TestRemoveAnswerMatchesReferenceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gen := func(max int) string {
		var b strings.Builder
		for range rng.IntN(max) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		return b.String()
	}
	answers := [][]string{{"$4.2 billion", "4.2 billion dollars"}, {"art"}, {"answer", "big Zed"}, {"the"}, {"x"}, {"Smith"}, {"é"}, {},
		{"big Zed"}, {"is big Zed"}, {"small Alpha"}, {"x x"}, {"billion the"}, {"Smith Revenue"}, {"answer Zed"}, {"x big"}}
	outcomes := map[string]int{}
	for range 100000 {
		ctxs := make([]string, rng.IntN(3))
		for i := range ctxs {
			ctxs[i] = gen(14)
		}
		accepted := answers[rng.IntN(len(answers))]
		if rng.IntN(4) == 0 {
			accepted = []string{gen(3)}
		}
		got, gerr := RemoveAnswer(ctxs, accepted)
		want, werr := referenceRemoveAnswer(ctxs, accepted)
		if !sameResult(got, gerr, want, werr) {
			t.Fatalf("RemoveAnswer(%q, %q) = %q, %v; reference %q, %v", ctxs, accepted, got, gerr, want, werr)
		}
		outcomes[fmt.Sprint(gerr)]++
	}
	t.Logf("outcomes %v", outcomes)

	// A tiny vocabulary, so that answers often span sentence boundaries
	// and survive the removal of the sentences around them.
	words := []string{"x", "big", "Zed", "the", "a", "Dr", "é"}
	seps := []string{" ", " ", ". ", ".\n", "\n\n", "! ", "? ", ".\u00a0", ".\" ", ", ", "\n"}
	outcomes = map[string]int{}
	for range 100000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		accepted := []string{words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]}
		ctxs := []string{b.String()}
		got, gerr := RemoveAnswer(ctxs, accepted)
		want, werr := referenceRemoveAnswer(ctxs, accepted)
		if !sameResult(got, gerr, want, werr) {
			t.Fatalf("RemoveAnswer(%q, %q) = %q, %v; reference %q, %v", ctxs, accepted, got, gerr, want, werr)
		}
		outcomes[fmt.Sprint(gerr)]++
	}
	t.Logf("outcomes %v", outcomes)
}

func FuzzRemoveAnswer(f *testing.F) {
	f.Add("Acme Corp's revenue in Q3 2025 was $4.2 billion. Its margin was 18%.", "An unrelated chunk.", "$4.2 billion")
	f.Add("Alpha is big. Beta holds the answer. Zed is small.", "", "big Zed")
	f.Add("Dr. J. Smith\nwrote it.\n\nThe end", "x\u00a0y. Z", "smith")
	f.Fuzz(func(t *testing.T, c1, c2, answer string) {
		ctxs := []string{c1, c2}
		accepted := []string{answer, "art"}
		got, gerr := RemoveAnswer(ctxs, accepted)
		want, werr := referenceRemoveAnswer(ctxs, accepted)
		if !sameResult(got, gerr, want, werr) {
			t.Fatalf("RemoveAnswer(%q, %q) = %q, %v; reference %q, %v", ctxs, accepted, got, gerr, want, werr)
		}
	})
}

func referenceNewRand(questionID, kind string) *rand.Rand {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s|%s", len(questionID), questionID, kind)
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

func TestNewRandMatchesReference(t *testing.T) {
	for _, id := range []string{"", "q", "q-acme-rev", strings.Repeat("long id ", 40), "ü\xff|:"} {
		for _, kind := range append(slices.Clone(QueryKinds), "", "x|y") {
			a, b := NewRand(id, kind), referenceNewRand(id, kind)
			for range 4 {
				if x, y := a.Uint64(), b.Uint64(); x != y {
					t.Fatalf("NewRand(%q, %q) draws %d, reference %d", id, kind, x, y)
				}
			}
		}
	}
}

// TestLemmasMatchesReferenceMalformed covers data lines the installed
// WordNet does not have. A negative w_cnt panics in both.
func TestLemmasMatchesReferenceMalformed(t *testing.T) {
	lines := []string{"", "1 2 n", "1 2 n 02 dog 0 cat 0 | a gloss", "1 2 n 03 dog 0 cat 0", "1 2 n 02 dog 0 cat",
		"1 2 n zz dog 0", "1 2 n 7fffffff dog 0", "1 2 n 01 big(a) 0", "1 2 n 01 (a) 0", "1\u00a02 n 01 x\u2003y 0 z",
		"1 2 n 00", "  1\t2  n 01   dog 0\r", "1 2 n 01 d\xffg 0", "1 2 n -1 x 0"}
	call := func(f func() []string) (out []string, panicked bool) {
		defer func() { panicked = recover() != nil }()
		return f(), false
	}
	for _, line := range lines {
		w := &WordNet{}
		w.data[0] = []byte(line + "\nnext line 0 01 other 0\n")
		got, gp := call(func() []string { return w.lemmas(0, 0) })
		want, wp := call(func() []string { return referenceLemmas(w, 0, 0) })
		if gp != wp || !reflect.DeepEqual(got, want) {
			t.Errorf("lemmas(%q) = %q (panic %v), reference %q (panic %v)", line, got, gp, want, wp)
		}
	}
}

// referenceAnchor is where a template's time anchor starts in query (its
// length when there is none): ", as reported in" or " as of", then a month
// and a year, at the very end.
func referenceAnchor(query string) int {
	for _, lead := range []string{", as reported in ", " as of "} {
		i := strings.LastIndex(strings.ToLower(query), lead)
		if i < 0 {
			continue
		}
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(query[i+len(lead):]), "?"))
		if len(f) != 2 || len(f[1]) != 4 || strings.Trim(f[1], "0123456789") != "" {
			continue
		}
		if _, err := time.Parse("January", f[0]); err == nil && strings.HasSuffix(strings.TrimSpace(query), "?") {
			return i
		}
	}
	return len(query)
}
