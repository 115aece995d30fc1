package perturb

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/tag"
	"github.com/jdkato/prose/v3/tokenize"
)

// This file holds the meaning-preserving synonym choice of the wordnet kind
// (docs/methods.md, Query perturbations). TextAttack's WordSwapWordNet takes
// every lemma of every synset of every part of speech; on real questions
// that changed what most of them ask ("operator" → "hustler", "revenue" →
// "taxation", "second quarter" → "arcsecond quarter"). A robustness score
// on a changed question measures nothing, so a swap here has to be a
// synonym a reader would accept without rereading. Which words may change
// (synonymEligible):
//
//   - not a name: no capitalized word after the first, no word before a
//     version ("make 4.3"), nothing that looks like code (an underscore,
//     inner capitals, a hyphen, a neighbouring path, option or operator
//     character), nothing inside quotes or backquotes;
//   - not a word of the question's subject (the phrase between the
//     auxiliary and the verb: "What does the timeout command now accept?"),
//     which names the entity the question is about;
//   - not a noun in a noun compound, nor a word that is one WordNet entry
//     with a neighbour ("second quarter"), nor an adverb before a
//     preposition ("instead of").
//
// Which synonym (meaningSynonyms): in the part of speech the tagger gives
// the word, from the word's most frequent sense only, and only when that
// sense is the word's usual one, the word has no technical sense besides,
// and a person as object does not point at another sense ("How many people
// did Acme employ?"); the new word must itself be read in that sense and
// that part of speech first, be ordinary English, and carry the word's
// inflection. With an embedder, synonym_floor.go then checks the whole
// question.

// Sense-frequency rules, chosen on questions outside the labelled sample
// (processors/perturb/testdata/wordnet_meaning.tsv).
const (
	// minSenseShare: a polysemous word's first sense must account for at
	// least this share of its SemCor-tagged occurrences, for the word
	// replaced and for the word put in its place; below it, which sense the
	// question means is a guess.
	minSenseShare = 0.5
	// minSenseCount: and for at least this many of them; fewer is too
	// little evidence that the sense dominates. A word with one sense in its
	// part of speech needs no counts: it cannot be read in another.
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

// usualFirst reports whether lemma's first sense in part of speech p is
// the one it is read in: its only sense, or at least minSenseCount tagged
// uses and minSenseShare of all of them.
func (w *WordNet) usualFirst(p int, lemma string) bool {
	offs := w.index[p][lemma]
	if len(offs) == 0 {
		return false
	}
	if len(offs) == 1 {
		return true
	}
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

// firstCount is the SemCor tag count of lemma's first sense in p.
func (w *WordNet) firstCount(p int, lemma string) int {
	if s := w.counts[p][lemma]; len(s) > 0 {
		return s[0]
	}
	return 0
}

// technical reports whether lemma has, besides its first sense in p, a
// sense that WordNet files under one of the topic domains of the documents
// robustream reads (technicalDomains). Questions come from such documents,
// where that sense is often the one meant even when general English uses
// another more ("file", "command", "release", "read"): the first sense is
// then not a safe guess.
func (w *WordNet) technical(p int, lemma string) bool {
	for _, off := range w.index[p][lemma][1:] {
		for _, d := range w.pointers(p, off, ";c") {
			if ls := w.lemmas(0, d); len(ls) > 0 && technicalDomains[ls[0]] {
				return true
			}
		}
	}
	return false
}

// technicalDomains are the topic domains (by the first lemma of the domain
// synset) of release notes, manuals and business reports.
var technicalDomains = map[string]bool{"computer_science": true, "electronics": true, "telecommunication": true,
	"mathematics": true, "statistics": true, "commerce": true, "finance": true, "economics": true,
	"accounting": true, "business": true, "banking": true, "law": true}

// termSense are words that are terms in the documents robustream reads,
// in a sense WordNet 3.0 does not record or does not rank first, so that
// its usual sense is the wrong one there: a program prints (not
// publishes) a line, a build is compiled (not constructed), a process is
// killed or forked, a prompt asks for input; a report's revenue is not its
// receipts, nor its shares its portions. Found on questions outside the
// labelled sample.
var termSense = map[string]bool{"revenue": true, "income": true, "profit": true, "earnings": true,
	"margin": true, "share": true, "stock": true, "interest": true, "yield": true, "balance": true,
	"capital": true, "equity": true, "bond": true, "security": true, "fund": true, "rate": true,
	"dividend": true, "loss": true, "gross": true, "net": true, "sales": true, "turnover": true,
	"order": true, "backlog": true, "guidance": true, "outlook": true, "volume": true, "asset": true,
	"liability": true, "debt": true, "charge": true, "cost": true, "expense": true, "price": true,
	"build": true, "print": true, "run": true, "ship": true, "dump": true,
	"kill": true, "fork": true, "spawn": true, "hang": true, "crash": true, "boot": true, "mount": true,
	"load": true, "release": true, "install": true, "handle": true, "support": true, "prompt": true,
	"output": true, "input": true, "flag": true, "patch": true, "commit": true, "merge": true, "push": true,
	"pull": true, "fetch": true, "link": true, "call": true, "return": true, "raise": true, "catch": true,
	"throw": true, "match": true, "render": true, "display": true, "draw": true, "fire": true, "drop": true,
	"bump": true, "parse": true, "port": true, "pipe": true, "echo": true, "remember": true, "export": true,
	"import": true, "cache": true, "lock": true, "block": true, "thread": true, "stream": true, "tag": true,
	"branch": true, "tree": true, "shell": true, "kernel": true, "package": true, "bundle": true}

// hasPointer reports whether the synset at offset has a pointer with the
// given symbol (";c" topic domain, ";u" usage domain…).
func (w *WordNet) hasPointer(p int, offset int64, symbol string) bool {
	return len(w.pointers(p, offset, symbol)) > 0
}

// pointers returns the targets of the pointers with the given symbol of
// the synset at offset in data file p that point at nouns (domains are
// nouns): "offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt
// (symbol offset pos source/target)…".
func (w *WordNet) pointers(p int, offset int64, symbol string) []int64 {
	data := w.data[p]
	if offset < 0 || offset >= int64(len(data)) {
		return nil
	}
	line := data[offset:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := fieldScanner{line: line}
	for range 3 {
		if f.next() == nil {
			return nil
		}
	}
	n, err := strconv.ParseInt(string(f.next()), 16, 32)
	if err != nil {
		return nil
	}
	for range 2 * n {
		f.next()
	}
	ptrs, err := strconv.Atoi(string(f.next()))
	if err != nil {
		return nil
	}
	var out []int64
	for range ptrs {
		sym, off, pos := f.next(), f.next(), f.next()
		if f.next() == nil {
			return out
		}
		if string(sym) == symbol && string(pos) == "n" {
			if o, err := strconv.ParseInt(string(off), 10, 64); err == nil {
				out = append(out, o)
			}
		}
	}
	return out
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

// synonymWords is the analysis of a question the wordnet kind needs, made
// once per question (queryWords.synonymWords).
type synonymWords struct {
	tags []string // Penn tag per word, "" when the tokenizer split it
	// keep marks the words never replaced by a synonym (synonymEligible's
	// rules that do not need the dictionary).
	keep []bool
}

// analyseSynonymWords tags q and marks the words that are names, code,
// quoted, or part of the question's subject.
func (w *WordNet) analyseSynonymWords(q string, words []word) *synonymWords {
	s := &synonymWords{tags: wordTags(q, words)}
	quoted := inQuotes(q, words)
	subject := w.subjectWords(words, s.tags)
	s.keep = make([]bool, len(words))
	// A capitalized word inside the question is a name: WordNet would turn
	// "Acme Corp" into "Meridian Corp", a question about another company.
	// The reference swaps names; robustream does not (typos in names stay
	// for char and qwerty: users do misspell names). A word before a
	// version names a program ("make 4.3" once became "earn 4.3").
	for i, w := range words {
		s.keep[i] = quoted[i] || subject[i] || i > 0 && startsUpper(w.text) || namesVersion(q, words, i) || codeLike(q, w) ||
			// An adverb before a preposition is part of a compound
			// preposition ("instead of", "ahead of", "prior to").
			strings.HasPrefix(s.tags[i], "RB") && i+1 < len(words) && (s.tags[i+1] == "IN" || s.tags[i+1] == "TO")
	}
	return s
}

// synonymWords returns the question's analysis for the wordnet kind, made
// on first use: tagging is most of the cost of a query perturbation, and
// char and qwerty do not need it.
func (q *queryWords) synonymWords(w *WordNet) *synonymWords {
	if q.syn == nil {
		q.syn = w.analyseSynonymWords(q.text, q.words)
	}
	return q.syn
}

// synonymEligible reports whether word i may be replaced by a synonym:
// not kept by analyseSynonymWords, not a noun in a noun compound, not part
// of a WordNet collocation with its neighbours.
func (w *WordNet) synonymEligible(q string, words []word, s *synonymWords, i int) bool {
	return !s.keep[i] && !inCompound(s.tags, i) && !w.collocated(q, words, i)
}

// codeLike reports whether w looks like an identifier or part of one: an
// underscore, '@' or '*' inside, a capital after the first letter
// ("GtkWindow", "API"), a hyphen ("command-line": a compound whose parts
// are not swapped alone), or a neighbouring character of a path, option,
// file name or expression ("--complement", "apt.conf", "/etc/apt", "x=y").
func codeLike(q string, w word) bool {
	if strings.ContainsAny(w.text, "_@*-") {
		return true
	}
	for k, r := range w.text {
		if k > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	const code = "/\\.=:<>$%{}[]()`~#|+-_*@&^"
	if w.start > 0 {
		r, _ := utf8.DecodeLastRuneInString(q[:w.start])
		if strings.ContainsRune(code, r) && r != '(' {
			return true
		}
	}
	if w.end < len(q) {
		r, n := utf8.DecodeRuneInString(q[w.end:])
		if r == '.' || r == ':' {
			// A sentence's full stop or colon is punctuation; one
			// followed by a letter is a file name or a key.
			next, _ := utf8.DecodeRuneInString(q[w.end+n:])
			return unicode.IsLetter(next) || unicode.IsDigit(next)
		}
		if strings.ContainsRune(code, r) && r != ')' {
			return true
		}
	}
	return false
}

// Words that open a question and the auxiliaries after which its subject
// comes: "What does <subject> now accept?", "Which option did <subject>
// add?", "How many keys does <subject> generate?", "What is <subject>?".
var (
	whWords     = map[string]bool{"what": true, "who": true, "whom": true, "which": true, "whose": true, "how": true, "when": true, "where": true, "why": true}
	auxiliaries = map[string]bool{"do": true, "does": true, "did": true, "is": true, "are": true, "was": true, "were": true,
		"has": true, "have": true, "had": true, "will": true, "would": true, "can": true, "could": true, "should": true,
		"may": true, "might": true, "must": true, "shall": true}
)

// subjectWords marks the words of the question's grammatical subject: after
// the first auxiliary that follows a wh-word, up to the main verb, an
// adverb ("now", "no longer") or a participle that follows a noun ("the
// bug fixed in …"). The subject names what the question is about; a synonym
// there ("the construct system" for "the build system") points at another
// thing. Questions without that shape ("Which release introduced …?") have
// no subject marked: their subject is the wh-phrase.
func (wn *WordNet) subjectWords(words []word, tags []string) []bool {
	out := make([]bool, len(words))
	lower := func(k int) string { return strings.ToLower(words[k].text) }
	start := slices.IndexFunc(words, func(w word) bool { return whWords[strings.ToLower(w.text)] })
	if start < 0 {
		return out
	}
	i := -1 // the question's auxiliary: right after the wh-phrase
	for k := start + 1; k < len(words) && k <= start+maxWhPhrase; k++ {
		if auxiliaries[lower(k)] {
			i = k
			break
		}
	}
	if i < 0 {
		// "Which release introduced the bug where … were …?": the
		// wh-phrase is the subject.
		return out
	}
	for k := start + 1; k < i; k++ {
		// The wh-phrase's words are nouns and modifiers ("Which tools
		// did …"), whatever the tagger, trained on statements, says.
		if strings.HasPrefix(tags[k], "VB") {
			tags[k] = "NN"
		}
	}
	adverb := func(k int) bool { return strings.HasPrefix(tags[k], "RB") || lower(k) == "no" }
	// verbFollows: after word k and any adverbs comes a verb, so word k,
	// tagged a verb, is a noun of the subject ("the timeout command now
	// accept").
	verbFollows := func(k int) bool {
		j := k + 1
		for j < len(words) && adverb(j) {
			j++
		}
		return j < len(words) && (strings.HasPrefix(tags[j], "VB") && !auxiliaries[lower(j)] || wn.mainVerb(words, tags, j))
	}
	do := lower(i) == "do" || lower(i) == "does" || lower(i) == "did"
	for k := i + 1; k < len(words); k++ {
		t := tags[k]
		if do && k > i+1 && wn.mainVerb(words, tags, k) && !verbFollows(k) {
			// The tagger reads the bare verb of "What does GnuTLS
			// require as of …?" as a noun: after do, a verb's base form
			// that ends the clause is the main verb (unless a verb still
			// follows: "the timeout command now accept").
			tags[k] = "VB"
			return out
		}
		switch {
		case auxiliaries[lower(k)]:
			return out
		case k == i+1:
			// The subject has at least one word, whatever its tag
			// ("What does Increase number … ?", "When was apt 2.4
			// released?").
		case adverb(k):
			// "now", "no longer", "also": the verb follows.
			for k < len(words) && adverb(k) {
				k++
			}
			if do && k < len(words) && wn.mainVerb(words, tags, k) {
				tags[k] = "VB"
			}
			return out
		case (t == "VB" || t == "VBP") && (strings.HasPrefix(tags[k-1], "DT") || tags[k-1] == "PRP$" || tags[k-1] == "POS" || strings.HasPrefix(tags[k-1], "JJ") || verbFollows(k)):
			// A verb tag after a determiner or adjective, or before the
			// verb, is the tagger misreading a noun ("the prompt", "the
			// timeout command now accept").
			tags[k] = "NN"
		case t == "VB" || t == "VBP" || t == "VBZ" || t == "VBD" || t == "MD" || strings.HasPrefix(t, "W"):
			return out
		case (t == "VBN" || t == "VBG") && (k+1 == len(words) || !strings.HasPrefix(tags[k+1], "NN") && !strings.HasPrefix(tags[k+1], "JJ")):
			// A participle not followed by a noun or adjective ("the bug
			// fixed in …", "When was apt 2.4 released?") is the verb or
			// a postmodifier; one before a noun ("the proposed
			// password") is part of the subject.
			return out
		}
		out[k] = true
	}
	return out
}

// maxWhPhrase is how many words may stand between the wh-word and the
// auxiliary: "How many bit RSA keys does …".
const maxWhPhrase = 5

// mainVerb reports whether words[k] is a verb in its base form (a WordNet
// verb lemma) that ends the question's clause: the last word, or one
// followed by a stopword ("… require as of November 2026?", "… use for
// …").
func (w *WordNet) mainVerb(words []word, tags []string, k int) bool {
	if strings.HasPrefix(tags[k], "VB") && tags[k] != "VBZ" || startsUpper(words[k].text) {
		return false
	}
	if k > 0 && (strings.HasPrefix(tags[k-1], "DT") || tags[k-1] == "PRP$" || tags[k-1] == "" || strings.HasSuffix(words[k-1].text, "'s")) {
		// After a determiner or a possessive it is a noun: "grep's use of".
		return false
	}
	lw := strings.ToLower(words[k].text)
	if _, ok := w.index[1][lw]; !ok {
		return false
	}
	return k+1 == len(words) || isStopword(words[k+1].text) && strings.ToLower(words[k+1].text) != "of"
}

// inQuotes reports, per word, whether it lies between a pair of quotes:
// straight or curly double quotes, backquotes, and single quotes that open
// after a space or bracket and close before one or before punctuation
// (so that an apostrophe, as in "it's", opens nothing).
func inQuotes(q string, words []word) []bool {
	out := make([]bool, len(words))
	var spans [][2]int
	open := map[rune]int{}
	prev := ' '
	for i, r := range q {
		next, _ := utf8.DecodeRuneInString(q[i+utf8.RuneLen(r):])
		switch r {
		case '"', '`':
			if o, ok := open[r]; ok {
				spans = append(spans, [2]int{o, i})
				delete(open, r)
			} else {
				open[r] = i
			}
		case '“':
			open[r] = i
		case '”':
			if o, ok := open['“']; ok {
				spans = append(spans, [2]int{o, i})
				delete(open, '“')
			}
		case '\'', '‘', '’':
			o, ok := open['\'']
			switch {
			case ok && (next == utf8.RuneError || unicode.IsSpace(next) || unicode.IsPunct(next)):
				spans = append(spans, [2]int{o, i})
				delete(open, '\'')
			case !ok && (i == 0 || unicode.IsSpace(prev) || prev == '('):
				open['\''] = i
			}
		}
		prev = r
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

// synonymChange replaces word i of q by a meaning-preserving synonym
// (meaningSynonyms) in its capitalization: the most common one in SemCor,
// a seeded choice among equally common ones.
func (p *Perturber) synonymChange(q *queryWords, i int, rng *rand.Rand) (string, bool) {
	s := q.synonymWords(p.WordNet)
	pos, infl, ok := posOf(s.tags[i])
	if !ok {
		return "", false
	}
	w := q.words[i].text
	syns := p.WordNet.meaningSynonyms(w, pos, infl, pos == 1 && p.WordNet.personObject(q.words, s.tags, i))
	if i > 0 {
		// "an extra line" must not become "an surplus line": a synonym
		// that would need the other indefinite article is refused.
		if a := strings.ToLower(q.words[i-1].text); a == "a" || a == "an" {
			syns = slices.DeleteFunc(slices.Clone(syns), func(x string) bool { return vowelSound(x) != vowelSound(w) })
		}
	}
	if len(syns) == 0 {
		return "", false
	}
	return matchCase(w, syns[rng.IntN(len(syns))]), true
}

// vowelSound approximates whether w is written after "an": it starts with
// a vowel letter. Words where spelling and sound disagree ("hour",
// "user") only make a synonym be refused, never an article wrong, because
// both words are judged by the same rule.
func vowelSound(w string) bool {
	return w != "" && strings.ContainsRune("aeiouAEIOU", rune(w[0]))
}

// meaningSynonyms returns the synonyms of word in part of speech p carrying
// inflection infl (posOf), already inflected: the lemmas of the word's
// first sense that are read in that sense first, among them those most
// often tagged in it (the most ordinary words for it), sorted. See the
// rules at the top of this file.
func (w *WordNet) meaningSynonyms(word string, p int, infl string, personObj bool) []string {
	lw := strings.ToLower(word)
	var base string
	for _, f := range w.baseForms(p, lw) {
		if (f == lw) == (infl == "") {
			base = f
			break
		}
	}
	if base == "" || !w.usualFirst(p, base) || w.technical(p, base) || termSense[base] {
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
	if p == 1 && personObj && (!w.personFrame(first, base) || w.otherPersonSense(base)) {
		// "How many people did Acme employ?": the verb's first sense
		// takes no person as object ("employ" = use), so the question
		// means another sense ("employ" = hire).
		return nil
	}
	if w.hasPointer(p, first, ";u") {
		// A sense marked by usage (slang, colloquialism, archaism) has
		// synonyms of that register.
		return nil
	}
	var out []string
	best := -1
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
		if offs := w.index[p][l]; len(offs) == 0 || offs[0] != first || !w.usualFirst(p, l) || w.technical(p, l) || w.firstCount(p, l) == 0 {
			// The new word must be read in the same sense first, not
			// have a technical sense of its own, and be ordinary
			// English: tagged in that sense at least once in SemCor
			// ("antecedently", "aright" never are).
			continue
		}
		if p == 1 && personObj && !w.personFrame(first, l) {
			continue
		}
		if w.otherPOSFirst(p, l) {
			continue
		}
		x, ok := w.inflect(p, l, infl)
		if !ok || strings.EqualFold(x, lw) {
			continue
		}
		switch c := w.firstCount(p, l); {
		case c > best:
			best, out = c, []string{x}
		case c == best:
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// otherPOSFirst reports whether lemma is read in another part of speech
// first: tagged more than four times as often there as in p in SemCor
// ("number", a noun 211 times and a verb 9: "What did exports number?"
// reads as a noun and asks for a count).
func (w *WordNet) otherPOSFirst(p int, lemma string) bool {
	sum := func(q int) int {
		n := 0
		for _, c := range w.counts[q][lemma] {
			n += c
		}
		return n
	}
	here := sum(p)
	for q := range wordnetPOS {
		if q != p && sum(q) > 4*here {
			return true
		}
	}
	return false
}

// personFrames are the WordNet verb frames (frames(5WN)) whose direct
// object is a person, as in the questions: "Somebody ----s somebody",
// "Something ----s somebody", "Somebody ----s somebody PP". Frames where
// the person needs a complement ("Somebody ----s somebody to INFINITIVE":
// "use somebody to …") do not fit "How many people did Acme employ?".
var personFrames = map[int]bool{9: true, 10: true, 20: true}

// thingFrames are the verb frames whose object is a thing: "Somebody
// ----s something", "Something ----s something", "… something to
// somebody", "… something from somebody", "… something PP", "… something
// with something".
var thingFrames = map[int]bool{8: true, 11: true, 15: true, 16: true, 21: true, 31: true}

// personFrame reports whether the verb synset at offset, for lemma, has a
// frame with a person as direct object.
func (w *WordNet) personFrame(offset int64, lemma string) bool {
	for _, f := range w.frames(offset, lemma) {
		if personFrames[f] {
			return true
		}
	}
	return false
}

// personOnly reports whether the verb synset at offset, for lemma, takes a
// person and never a thing as object ("hire", "engage").
func (w *WordNet) personOnly(offset int64, lemma string) bool {
	person := false
	for _, f := range w.frames(offset, lemma) {
		if thingFrames[f] {
			return false
		}
		person = person || personFrames[f]
	}
	return person
}

// otherPersonSense reports whether a sense of verb lemma other than its
// first, used in at least a tenth of its tagged occurrences, takes only
// people as object: with a person as object the question then likely
// means that sense ("How many people did Acme employ?": employ = hire, not
// use).
func (w *WordNet) otherPersonSense(lemma string) bool {
	counts := w.counts[1][lemma]
	total := 0
	for _, c := range counts {
		total += c
	}
	for k, off := range w.index[1][lemma] {
		if k == 0 || k >= len(counts) || 10*counts[k] < total {
			continue
		}
		if w.personOnly(off, lemma) {
			return true
		}
	}
	return false
}

// frames returns the frame numbers of the verb synset at offset that apply
// to lemma: "f_cnt (+ f_num w_num)…" after the pointers, w_num 0 meaning
// every lemma of the synset.
func (w *WordNet) frames(offset int64, lemma string) []int {
	data := w.data[1]
	if offset < 0 || offset >= int64(len(data)) {
		return nil
	}
	line := data[offset:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := fieldScanner{line: line}
	for range 3 {
		f.next()
	}
	n, err := strconv.ParseInt(string(f.next()), 16, 32)
	if err != nil {
		return nil
	}
	idx := 0 // lemma's 1-based position in the synset
	for k := range n {
		l := f.next()
		f.next()
		if j := bytes.IndexByte(l, '('); j > 0 {
			l = l[:j]
		}
		if strings.EqualFold(string(l), lemma) {
			idx = int(k) + 1
		}
	}
	ptrs, err := strconv.Atoi(string(f.next()))
	if err != nil {
		return nil
	}
	for range 4 * ptrs {
		f.next()
	}
	cnt, err := strconv.Atoi(string(f.next()))
	if err != nil {
		return nil
	}
	var out []int
	for range cnt {
		f.next() // "+"
		fn, err1 := strconv.Atoi(string(f.next()))
		wn, err2 := strconv.ParseInt(string(f.next()), 16, 32)
		if err1 != nil || err2 != nil {
			return out
		}
		if wn == 0 || int(wn) == idx {
			out = append(out, fn)
		}
	}
	return out
}

// personObject reports whether verb i of the question has a person or a
// group of people as its object: "Whom did … appoint?", "How many people
// did … employ?", "… hired two engineers".
func (w *WordNet) personObject(words []word, tags []string, i int) bool {
	lower := func(k int) string { return strings.ToLower(words[k].text) }
	if len(words) > 1 && (lower(0) == "whom" || lower(0) == "who" && auxiliaries[lower(1)]) {
		return true
	}
	if len(words) > 2 && lower(0) == "how" && (lower(1) == "many" || lower(1) == "much") {
		noun := -1
		for k := 2; k < i && !auxiliaries[lower(k)]; k++ {
			if strings.HasPrefix(tags[k], "NN") {
				noun = k
			}
		}
		if noun >= 0 {
			return w.isPerson(lower(noun))
		}
	}
	for k := i + 1; k < len(words) && k <= i+4; k++ {
		switch t := tags[k]; {
		case t == "PRP":
			return lower(k) != "it"
		case strings.HasPrefix(t, "NN"):
			return w.isPerson(lower(k))
		case t == "DT" || t == "PRP$" || t == "CD" || strings.HasPrefix(t, "JJ"):
		default:
			return false
		}
	}
	return false
}

// isPerson reports whether the noun's first sense is a person or a group
// of people (the lexicographer files noun.person and noun.group).
func (w *WordNet) isPerson(noun string) bool {
	for _, b := range w.baseForms(0, noun) {
		if lf := w.lexFile(0, w.index[0][b][0]); lf == lexNounPerson || lf == lexNounGroup {
			return true
		}
	}
	return false
}

// Lexicographer files of WordNet's nouns (lexnames(5WN)) that meaningSynonyms avoids.
const (
	lexNounGroup    = 14
	lexNounPerson   = 18
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
