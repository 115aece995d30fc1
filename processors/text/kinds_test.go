package text

import "testing"

func TestAcronymAndNotName(t *testing.T) {
	for w, want := range map[string]bool{"MTA": true, "HTTP2": true, "DMARC": true, "X": false, "Xml": false, "2FA": false, "ABCDEFGHI": false} {
		if got := Acronym(w); got != want {
			t.Errorf("Acronym(%q) = %v, want %v", w, got, want)
		}
	}
	for w, want := range map[string]bool{"following": true, "default": true, "iburst": false, "makestep": false} {
		if got := NotName(w); got != want {
			t.Errorf("NotName(%q) = %v, want %v", w, got, want)
		}
	}
}
