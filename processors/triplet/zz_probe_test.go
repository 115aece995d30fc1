package triplet

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	b, err := os.ReadFile(os.Getenv("PROBE"))
	if err != nil {
		t.Skip()
	}
	for _, x := range ExtractTitled(string(b), os.Getenv("PROBE_TITLE")) {
		fmt.Printf("%q | %s | %q  [%s]\n", x.Head, x.Relation, x.Tail, x.Kind)
	}
}

func TestZZSentences(t *testing.T) {
	b, err := os.ReadFile(os.Getenv("SENTS"))
	if err != nil {
		t.Skip()
	}
	for _, chunk := range strings.Split(string(b), "\n\n") {
		for _, s := range Sentences(chunk) {
			n := len(ExtractTitled(s.Text, ""))
			w := len(strings.Fields(s.Text))
			if w < 4 || w > 30 || strings.HasPrefix(s.Text, "#") || strings.Contains(s.Text, "`") || strings.Contains(s.Text, "|") {
				continue
			}
			fmt.Printf("%d\t%s\n", n, strings.ReplaceAll(s.Text, "\n", " "))
		}
	}
}

func TestZZTags(t *testing.T) {
	s := os.Getenv("TAGS")
	if s == "" {
		t.Skip()
	}
	ts := tagSentence(s)
	retag(ts)
	for _, x := range ts {
		fmt.Printf("%s/%s ", x.text, x.tag)
	}
	fmt.Println()
}
