// Package processors_test holds the rules that span the stage packages under
// processors/; there is no package processors itself.
package processors_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listed is the part of `go list -json` output the rule needs.
type listed struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// TestStagesImportNoOtherStage enforces how the packages under processors/
// depend on the rest of the module: a stage package may import streams,
// schemas, processors/text and processors/provider from this module, never
// another stage package; processors/metrics (the metric families' one
// home, read by pairing and by cmd) imports only schemas; processors/text
// imports nothing from this module;
// and processors/provider imports only processors/text. Shared text handling
// therefore lives in processors/text and the models and services stages
// consume in processors/provider, where every stage gets the same one,
// rather than in whichever stage needed it first. Keeping streams and schemas
// out of processors/provider is what keeps it free of Kafka and events (its
// package doc).
//
// Only the packages' own imports count. Tests may import other stages to run
// a realistic pipeline (perturb's benchmarks feed it the demo feed's
// questions); that does not make one stage depend on another.
func TestStagesImportNoOtherStage(t *testing.T) {
	// go test runs in the package directory and puts its own go first
	// in PATH; the module root is where go.mod is.
	gomod := strings.TrimSpace(string(goCommand(t, ".", "env", "GOMOD")))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("go env GOMOD: not inside a module")
	}
	root := filepath.Dir(gomod)
	out := goCommand(t, root, "list", "-json=ImportPath,Imports,Module", "./processors/...")
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 || pkgs[0].Module == nil {
		t.Fatalf("go list found no packages of a module under %s/processors", root)
	}

	module := pkgs[0].Module.Path
	text := module + "/processors/text"
	provider := module + "/processors/provider"
	metricsPkg := module + "/processors/metrics"
	allowed := []string{module + "/streams", module + "/schemas", text, provider, metricsPkg}
	imported := map[string]bool{} // shared package → some package imports it
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue // standard library or another module
			}
			imported[imp] = true
			switch {
			case p.ImportPath == text:
				t.Errorf("%s imports %s: processors/text must not import any package of this module", p.ImportPath, imp)
			case p.ImportPath == metricsPkg && imp != module+"/schemas":
				t.Errorf("%s imports %s: processors/metrics may import only schemas of this module (the families' one home, shared by the stages and cmd)", p.ImportPath, imp)
			case p.ImportPath == provider && imp != text:
				t.Errorf("%s imports %s: processors/provider may import only processors/text of this module "+
					"(no stage package, and no streams or schemas: providers know nothing of Kafka or events)", p.ImportPath, imp)
			case !slices.Contains(allowed, imp):
				t.Errorf("%s imports %s: a stage package may import only streams, schemas, processors/text and processors/provider of this module; "+
					"move what both need into processors/text or processors/provider", p.ImportPath, imp)
			}
		}
	}
	// Guard against a vacuous pass, should the listing ever come back
	// without what the rule is about.
	for _, shared := range []string{text, provider} {
		if !slices.ContainsFunc(pkgs, func(p listed) bool { return p.ImportPath == shared }) || !imported[shared] {
			t.Errorf("go list saw no %s or nothing importing it among %d packages: the check ran on the wrong listing", shared, len(pkgs))
		}
	}
}

// goCommand runs the go command with args in dir and returns its output.
func goCommand(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}
