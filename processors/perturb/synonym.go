package perturb

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/jdkato/prose/v3/tag"
	"github.com/jdkato/prose/v3/tokenize"
)

// This file holds the meaning-preserving synonym choice of the wordnet kind
// (docs/methods.md, Query perturbations). TextAttack's WordSwapWordNet takes
// every lemma of every synset of every part of speech; on real questions
// that changed what most of them ask ("operator" → "hustler", "revenue" →
// "taxation", "second quarter" → "arcsecond quarter"). A robustness score
// on a changed question measures nothing, so a swap here has to be a
// synonym a reader would accept without rereading:
//
//   - only in the part of speech the word has in the question (the tagger);
//   - only the word's first sense, and only when that sense is the one it is
//     used in most of the time (SemCor counts in cntlist.rev): a polysemous
//     word has no safe synonym without knowing its sense;
//   - only lemmas whose own first, dominant sense is that synset, so that the
//     new word is read in the same sense and is common enough to have been
//     seen in the tagged corpus;
//   - the inflection written back (plural, -s, -ed, -ing), refused when it
//     cannot be built by regular rules;
//   - never a word that forms a WordNet collocation with its neighbour
//     ("second quarter", "operating system"), a proper noun, a number, or a
//     word inside quotes (a section title the question points at).

// Sense-frequency rules, chosen on questions outside the labelled sample
// (processors/perturb/testdata/wordnet_meaning.tsv).
const (
	// minSenseShare: the first sense must account for at least this share
	// of a word's tagged occurrences, for the word replaced and the word put
	// in its place.
	minSenseShare = 0.8
	// minSenseCount: and for at least this many of them; fewer is too
	// little evidence that the word is common or that the sense dominates.
	minSenseCount = 3
)

// senseCounts holds, per part of speech and lemma, the SemCor tag count of
// each sense in WordNet's order (cntlist.rev, shipped by wordnet-base).
type senseCounts [len(wordnetPOS)]map[string][]int

// readCounts parses cntlist.rev: "lemma%ss_type:lex_filenum:lex_id:head:head_id
// sense_number tag_cnt". ss_type 5 (adjective satellite) counts as 3.
func readCounts(path string) (senseCounts, error) {
	var c senseCounts
	for p := range c {
		c[p] = make(map[string][]int)
	}
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		key, rest, ok := strings.Cut(fs[0], "%")
		if !ok || rest == "" {
			continue
		}
		p := int(rest[0] - '1')
		if rest[0] == '5' {
			p = 2
		}
		n, err1 := strconv.Atoi(fs[1])
		cnt, err2 := strconv.Atoi(fs[2])
		if p < 0 || p >= len(wordnetPOS) || err1 != nil || err2 != nil || n < 1 || n > 200 {
			continue
		}
		s := c[p][key]
		for len(s) < n {
			s = append(s, 0)
		}
		s[n-1] += cnt
		c[p][key] = s
	}
	return c, sc.Err()
}

// dominantFirst reports whether lemma's first sense in part of speech p is
// its usual one: at least minSenseCount tagged uses and minSenseShare of
// all of them.
func (w *WordNet) dominantFirst(p int, lemma string) bool {
	s := w.counts[p][lemma]
	if len(s) == 0 {
		return false
	}
	total := 0
	for _, n := range s {
		total += n
	}
	return s[0] >= minSenseCount && float64(s[0]) >= minSenseShare*float64(total)
}

// posOf maps a Penn Treebank tag to a WordNet part of speech and the
// inflection the word carries; ok is false for tags never swapped (proper
// nouns, numbers, comparatives, function words).
func posOf(t string) (p int, infl string, ok bool) {
	switch t {
	case "NN":
		return 0, "", true
	case "NNS":
		return 0, "s", true
	case "VB", "VBP":
		return 1, "", true
	case "VBZ":
		return 1, "s", true
	case "VBD", "VBN":
		return 1, "ed", true
	case "VBG":
		return 1, "ing", true
	case "JJ":
		return 2, "", true
	case "RB":
		return 3, "", true
	}
	return 0, "", false
}

// The question tagger: prose's averaged perceptron, model embedded, loaded
// once on the first wordnet perturbation.
var (
	qTokenizer = tokenize.New()
	qTagger    = sync.OnceValue(func() *tag.Tagger {
		t, err := tag.New()
		if err != nil {
			panic("perturb: cannot load the part-of-speech model: " + err.Error())
		}
		return t
	})
)

// wordTags returns the Penn tag of each word of q, "" when no token spans
// exactly that word (the tokenizer split it, as "Acme's" → "Acme" "'s"):
// such a word is not swapped.
func wordTags(q string, words []word) []string {
	toks := qTokenizer.Tokenize(q)
	qTagger().TagTokens(toks)
	byStart := make(map[int]int, len(toks))
	for k := range toks {
		byStart[toks[k].Start] = k
	}
	tags := make([]string, len(words))
	for i, w := range words {
		if k, ok := byStart[w.start]; ok && toks[k].End() == w.end {
			tags[i] = toks[k].Tag
		}
	}
	return tags
}

// inQuotes reports, per word, whether it lies between a pair of straight
// or curly double quotes.
func inQuotes(q string, words []word) []bool {
	out := make([]bool, len(words))
	open := -1
	var spans [][2]int
	for i, r := range q {
		if r == '"' || r == '“' || r == '”' {
			if open < 0 {
				open = i
			} else {
				spans = append(spans, [2]int{open, i})
				open = -1
			}
		}
	}
	for i, w := range words {
		for _, s := range spans {
			if w.start > s[0] && w.end <= s[1] {
				out[i] = true
			}
		}
	}
	return out
}

// collocated reports whether word i and one or two neighbours (joined by
// single spaces) are one WordNet entry in any part of speech, in their
// written or base forms: "second quarter", "chief financial officer".
func (w *WordNet) collocated(q string, words []word, i int) bool {
	forms := func(s string) []string {
		s = strings.ToLower(s)
		out := []string{s}
		for p := range wordnetPOS {
			for _, f := range w.baseForms(p, s) {
				if !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
		return out
	}
	// entry reports whether words[a..b] is an index entry.
	entry := func(a, b int) bool {
		if a < 0 || b >= len(words) {
			return false
		}
		for k := a; k < b; k++ {
			if q[words[k].end:words[k+1].start] != " " {
				return false
			}
		}
		prefixes := []string{""}
		for k := a; k <= b; k++ {
			var next []string
			for _, pre := range prefixes {
				for _, f := range forms(words[k].text) {
					if pre != "" {
						f = pre + "_" + f
					}
					next = append(next, f)
				}
			}
			prefixes = next
		}
		for _, x := range prefixes {
			for p := range wordnetPOS {
				if _, ok := w.index[p][x]; ok {
					return true
				}
			}
		}
		return false
	}
	for a := i - 2; a <= i; a++ {
		for b := max(a+1, i); b <= a+2 && b <= i+2; b++ {
			if entry(a, b) {
				return true
			}
		}
	}
	return false
}

// inCompound reports whether noun i is next to another noun ("job
// placement rate", "terawatt hours"): a noun compound is often a term of
// its own, whose parts have no synonyms that keep it.
func inCompound(tags []string, i int) bool {
	noun := func(k int) bool { return k >= 0 && k < len(tags) && strings.HasPrefix(tags[k], "NN") }
	return noun(i) && (noun(i-1) || noun(i+1))
}

// meaningSynonyms returns the synonyms of word in part of speech p carrying
// inflection infl (posOf), already inflected, sorted. See the rules at the
// top of this file.
func (w *WordNet) meaningSynonyms(word string, p int, infl string) []string {
	lw := strings.ToLower(word)
	var base string
	for _, f := range w.baseForms(p, lw) {
		if (f == lw) == (infl == "") {
			base = f
			break
		}
	}
	if base == "" || !w.dominantFirst(p, base) {
		return nil
	}
	first := w.index[p][base][0]
	if p == 0 {
		if lf := w.lexFile(p, first); lf == lexNounQuantity || lf == lexNounTime {
			// Units and periods ("hour", "quarter", "megabyte") are
			// measured, not paraphrased: their synonyms are abbreviations
			// or other units.
			return nil
		}
	}
	var out []string
	for _, l := range w.lemmas(p, first) {
		if l == base || len(l) < 3 || strings.ContainsAny(l, "_-'.") || !isLowerWord(l) || !strings.ContainsAny(l, "aeiouy") {
			// A lemma without a vowel is an abbreviation ("hr", "wk").
			continue
		}
		if strings.HasPrefix(l, base[:len(base)*3/4]) || strings.HasPrefix(base, l[:len(l)*3/4]) {
			// A lemma sharing most of the word's stem is a spelling
			// variant or a derivation ("instal", "grouping"), not a
			// synonym, and often names another thing.
			continue
		}
		if offs := w.index[p][l]; len(offs) == 0 || offs[0] != first || !w.dominantFirst(p, l) {
			continue
		}
		x, ok := w.inflect(p, l, infl)
		if !ok || strings.EqualFold(x, lw) {
			continue
		}
		out = append(out, x)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Lexicographer files of WordNet's nouns (lexnames(5WN)) that meaningSynonyms avoids.
const (
	lexNounQuantity = 23
	lexNounTime     = 28
)

// lexFile returns the lexicographer file number of the synset at offset
// (the second field of its data line), or -1.
func (w *WordNet) lexFile(p int, offset int64) int {
	data := w.data[p]
	if offset < 0 || offset >= int64(len(data)) {
		return -1
	}
	f := fieldScanner{line: data[offset:min(int64(len(data)), offset+64)]}
	f.next()
	n, err := strconv.Atoi(string(f.next()))
	if err != nil {
		return -1
	}
	return n
}

func isLowerWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return s != ""
}

// inflect writes lemma l of part of speech p with inflection infl by the
// regular English rules, and accepts the result only if WordNet's own
// morphology takes it back to l and l has no irregular form (an exception
// list entry): "purchase" + ed → "purchased", while "run" (ran/run) or
// "stop" (doubling) are refused rather than guessed.
func (w *WordNet) inflect(p int, l, infl string) (string, bool) {
	if infl == "" {
		return l, true
	}
	if w.irregular[p][l] {
		return "", false
	}
	n := len(l)
	vowel := func(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }
	cvc := n >= 3 && !vowel(l[n-1]) && vowel(l[n-2]) && !vowel(l[n-3]) && strings.IndexByte("wxy", l[n-1]) < 0
	var x string
	switch infl {
	case "s":
		switch {
		case strings.HasSuffix(l, "s") || strings.HasSuffix(l, "x") || strings.HasSuffix(l, "z") ||
			strings.HasSuffix(l, "ch") || strings.HasSuffix(l, "sh"):
			x = l + "es"
		case n >= 2 && l[n-1] == 'y' && !vowel(l[n-2]):
			x = l[:n-1] + "ies"
		default:
			x = l + "s"
		}
	case "ed":
		switch {
		case cvc:
			return "", false
		case strings.HasSuffix(l, "e"):
			x = l + "d"
		case n >= 2 && l[n-1] == 'y' && !vowel(l[n-2]):
			x = l[:n-1] + "ied"
		default:
			x = l + "ed"
		}
	case "ing":
		switch {
		case cvc || strings.HasSuffix(l, "ie"):
			return "", false
		case strings.HasSuffix(l, "e") && !strings.HasSuffix(l, "ee"):
			x = l[:n-1] + "ing"
		default:
			x = l + "ing"
		}
	default:
		return "", false
	}
	if !slices.Contains(w.baseForms(p, x), l) {
		return "", false
	}
	return x, true
}

// countsPath is where the dictionary keeps its sense counts.
func countsPath(dir string) string { return filepath.Join(dir, "cntlist.rev") }
