package main

// Checks of deploy/ without a container engine: the files parse, images are
// pinned, names and ports agree with each other and with the engine (its
// configuration env names, stage registry, consumer groups, probes), the
// engine accepts each process's configuration (`run --dry-run`), the Helm
// templates render, and every Grafana panel query runs on a migrated chDB.
// Not checked: that the images build or start, Kubernetes/KEDA/Grafana
// schemas beyond the fields read here, Helm functions beyond the few the
// chart uses (rendered with a stand-in FuncMap, not Helm itself).

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"gopkg.in/yaml.v3"
)

const deployDir = "../../deploy"

// configEnvNames is every environment variable the engine reads for its
// configuration, from the same table the loader uses.
func configEnvNames() map[string]bool {
	cfg := defaultConfig()
	names := map[string]bool{"ROBUSTREAM_CONFIG": true, "ROBUSTREAM_CHDB_LIB": true}
	for _, l := range leaves(reflect.ValueOf(&cfg).Elem(), "") {
		names[l.env] = true
	}
	return names
}

// checkEnv fails on a ROBUSTREAM_ variable the engine does not read, except
// the API token variable that the configuration names.
func checkEnv(t *testing.T, where string, env map[string]string) {
	t.Helper()
	known := configEnvNames()
	for k, v := range env {
		if !strings.HasPrefix(k, "ROBUSTREAM_") || known[k] || k == "ROBUSTREAM_API_TOKEN" {
			continue
		}
		t.Errorf("%s: env %s=%q is not a configuration variable of the engine", where, k, v)
	}
	if s, ok := env["ROBUSTREAM_STAGES"]; ok {
		checkStages(t, where, strings.Split(s, ","))
	}
}

func checkStages(t *testing.T, where string, stages []string) {
	t.Helper()
	for _, s := range stages {
		s = strings.TrimSpace(s)
		if !slices.Contains(stageNames(), s) && s != "sinks" && s != "source" {
			t.Errorf("%s: unknown stage %q (known: %v, sinks, source)", where, s, stageNames())
		}
	}
}

// checkCoverage fails unless every registered stage runs somewhere.
func checkCoverage(t *testing.T, where string, run [][]string) {
	t.Helper()
	covered := map[string]bool{}
	for _, stages := range run {
		for _, s := range stages {
			covered[s] = true
		}
	}
	for _, s := range stageNames() {
		if !covered[s] && !(strings.HasPrefix(s, "sink.") && covered["sinks"]) {
			t.Errorf("%s: stage %s runs in no process", where, s)
		}
	}
}

var pinnedImage = regexp.MustCompile(`^[a-z0-9./_-]+:[A-Za-z0-9._-]*[0-9][A-Za-z0-9._-]*$`)

func checkImage(t *testing.T, where, image string) {
	t.Helper()
	if !pinnedImage.MatchString(image) || strings.HasSuffix(image, ":latest") {
		t.Errorf("%s: image %q is not pinned to a versioned tag", where, image)
	}
}

// deployDryRun runs `robustream run --dry-run` with env and fails on a verdict
// other than "configuration is valid".
func deployDryRun(t *testing.T, where string, env map[string]string) {
	t.Helper()
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	out, err := runBinary(list, "run", "--dry-run")
	if err != nil || !strings.Contains(out, "configuration is valid") {
		t.Errorf("%s: robustream run --dry-run: %v\n%s", where, err, out)
	}
}

func runBinary(env []string, args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestDeployCompose(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			Volumes     []string          `yaml:"volumes"`
		} `yaml:"services"`
	}
	readYAML(t, filepath.Join(deployDir, "docker-compose.yml"), &compose)
	var cfg struct {
		HTTP       string                     `yaml:"http"`
		TokenEnv   string                     `yaml:"http_token_env"`
		Kafka      struct{ Brokers []string } `yaml:"kafka"`
		ClickHouse struct{ URL string }       `yaml:"clickhouse"`
	}
	readYAML(t, filepath.Join(deployDir, "config", "robustream.yaml"), &cfg)
	if cfg.TokenEnv != "ROBUSTREAM_API_TOKEN" {
		t.Errorf("config http_token_env = %q; the compose file sets ROBUSTREAM_API_TOKEN", cfg.TokenEnv)
	}
	models, err := filepath.Abs(filepath.Join(deployDir, "config", "models.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	configFile, _ := filepath.Abs(filepath.Join(deployDir, "config", "robustream.yaml"))

	var run [][]string
	for name, s := range compose.Services {
		checkImage(t, "service "+name, s.Image)
		checkEnv(t, "service "+name, s.Environment)
		if !strings.HasPrefix(s.Image, "robustream:") {
			continue
		}
		if s.Environment["ROBUSTREAM_CONFIG"] != "/etc/robustream/robustream.yaml" || !slices.Contains(s.Volumes, "./config:/etc/robustream:ro") {
			t.Errorf("service %s: does not mount deploy/config as its configuration", name)
		}
		if name == "migrate" {
			continue
		}
		stages := strings.Split(s.Environment["ROBUSTREAM_STAGES"], ",")
		if len(stages) == 0 || stages[0] == "" {
			t.Errorf("service %s: runs every stage (set ROBUSTREAM_STAGES)", name)
		}
		run = append(run, stages)
		// The engine's own verdict on this process's configuration, with
		// the paths of the container replaced by the repository's.
		env := map[string]string{"ROBUSTREAM_DATA_DIR": t.TempDir(), "ROBUSTREAM_MODELS": models}
		for k, v := range s.Environment {
			env[k] = v
		}
		env["ROBUSTREAM_CONFIG"] = configFile
		env["ROBUSTREAM_API_TOKEN"] = "test-token"
		deployDryRun(t, "service "+name, env)
	}
	checkCoverage(t, "docker-compose.yml", run)

	// Prometheus scrapes /metrics of every robustream process, on the port
	// the engine listens on, without a token (the config makes /metrics
	// public).
	prom, ok := compose.Services["prometheus"]
	if !ok {
		t.Error("docker-compose.yml has no prometheus service")
	} else if !slices.Contains(prom.Volumes, "./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro") {
		t.Errorf("prometheus does not mount prometheus/prometheus.yml: %v", prom.Volumes)
	}
	var scrape struct {
		ScrapeConfigs []struct {
			MetricsPath string `yaml:"metrics_path"`
			DNSSD       []struct {
				Names []string `yaml:"names"`
				Type  string   `yaml:"type"`
				Port  int      `yaml:"port"`
			} `yaml:"dns_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, filepath.Join(deployDir, "prometheus", "prometheus.yml"), &scrape)
	scraped := map[string]bool{}
	_, httpPort, _ := strings.Cut(cfg.HTTP, ":")
	for _, sc := range scrape.ScrapeConfigs {
		for _, d := range sc.DNSSD {
			if sc.MetricsPath != "/metrics" || d.Type != "A" || fmt.Sprint(d.Port) != httpPort {
				t.Errorf("scrape config %+v: want /metrics on port %s of each replica (type A)", sc, httpPort)
			}
			for _, n := range d.Names {
				scraped[n] = true
			}
		}
	}
	for name, s := range compose.Services {
		if strings.HasPrefix(s.Image, "robustream:") && name != "migrate" && !scraped[name] {
			t.Errorf("Prometheus does not scrape the robustream service %s", name)
		}
	}
	for name := range scraped {
		if _, ok := compose.Services[name]; !ok {
			t.Errorf("Prometheus scrapes %s, which is no compose service", name)
		}
	}
	var public struct {
		Public bool `yaml:"http_metrics_public"`
	}
	readYAML(t, filepath.Join(deployDir, "config", "robustream.yaml"), &public)
	if !public.Public {
		t.Error("config/robustream.yaml does not serve /metrics without the token; Prometheus sends none")
	}

	// Addresses agree: Kafka, ClickHouse (and its credentials), vLLM, HTTP.
	kafka := compose.Services["kafka"].Environment
	if !slices.Contains(cfg.Kafka.Brokers, strings.TrimPrefix(kafka["KAFKA_ADVERTISED_LISTENERS"], "PLAINTEXT://")) {
		t.Errorf("kafka.brokers %v does not name the advertised listener %s", cfg.Kafka.Brokers, kafka["KAFKA_ADVERTISED_LISTENERS"])
	}
	u, err := url.Parse(cfg.ClickHouse.URL)
	if err != nil {
		t.Fatal(err)
	}
	ch := compose.Services["clickhouse"].Environment
	pw, _ := u.User.Password()
	if u.Host != "clickhouse:9000" || u.User.Username() != ch["CLICKHOUSE_USER"] || pw != ch["CLICKHOUSE_PASSWORD"] || u.Path != "/"+ch["CLICKHOUSE_DB"] {
		t.Errorf("clickhouse.url %s does not match the clickhouse service (user %s, db %s, native port 9000)", cfg.ClickHouse.URL, ch["CLICKHOUSE_USER"], ch["CLICKHOUSE_DB"])
	}
	if g := compose.Services["grafana"].Environment; g["CLICKHOUSE_USER"] != ch["CLICKHOUSE_USER"] || g["CLICKHOUSE_PASSWORD"] != ch["CLICKHOUSE_PASSWORD"] {
		t.Error("grafana's ClickHouse credentials differ from the clickhouse service's")
	}
	var ds struct {
		Datasources []struct {
			UID      string         `yaml:"uid"`
			Type     string         `yaml:"type"`
			JSONData map[string]any `yaml:"jsonData"`
		} `yaml:"datasources"`
	}
	readYAML(t, filepath.Join(deployDir, "grafana", "provisioning", "datasources", "clickhouse.yaml"), &ds)
	if len(ds.Datasources) != 1 || fmt.Sprint(ds.Datasources[0].JSONData["host"], ":", ds.Datasources[0].JSONData["port"]) != u.Host {
		t.Errorf("the Grafana data source does not point at %s: %+v", u.Host, ds.Datasources)
	}
	if !strings.Contains(compose.Services["grafana"].Environment["GF_INSTALL_PLUGINS"], ds.Datasources[0].Type+" ") {
		t.Errorf("grafana does not install the plugin %s with a pinned version", ds.Datasources[0].Type)
	}
	vllm := strings.Join(compose.Services["vllm"].Command, " ")
	var m struct {
		Models []struct {
			ID      string `yaml:"id"`
			Kind    string `yaml:"kind"`
			BaseURL string `yaml:"base_url"`
			Model   string `yaml:"model"`
		} `yaml:"models"`
	}
	readYAML(t, models, &m)
	for _, x := range m.Models {
		if x.Kind == "openai" && (!strings.HasPrefix(x.BaseURL, "http://vllm:8000/") || !strings.Contains(vllm, "--port 8000") || !strings.Contains(vllm, "--served-model-name "+x.Model)) {
			t.Errorf("model %s (%s at %s) is not what the vllm service serves (%s)", x.ID, x.Model, x.BaseURL, vllm)
		}
	}
	_, port, _ := strings.Cut(cfg.HTTP, ":")
	if p := compose.Services["sinks"].Ports; len(p) != 1 || !strings.HasSuffix(p[0], ":"+port+":"+port) {
		t.Errorf("sinks publishes %v; the engine listens on %s", p, cfg.HTTP)
	}
}

func TestDeployDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	args := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^ARG (\w+)=(\S+)$`).FindAllStringSubmatch(df, -1) {
		args[m[1]] = m[2]
	}
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(df, -1)
	if len(froms) < 2 {
		t.Fatalf("not a multi-stage build: %d FROM lines", len(froms))
	}
	for _, f := range froms {
		img := f[1]
		if a, ok := strings.CutPrefix(img, "${"); ok {
			img = args[strings.TrimSuffix(a, "}")]
		}
		checkImage(t, "Dockerfile FROM "+f[1], img)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goVersion == nil || !strings.HasPrefix(args["GO_IMAGE"], "golang:"+string(goVersion[1])+"-") {
		t.Errorf("GO_IMAGE %s does not match go.mod's go %s", args["GO_IMAGE"], goVersion[1])
	}
	for _, want := range []string{"COPY scripts/fetch-chdb.sh", "./cmd/robustream", "ROBUSTREAM_CHDB_LIB=", "EXPOSE 8080"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if _, err := os.Stat("../../scripts/fetch-chdb.sh"); err != nil {
		t.Error(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^ENV (.*(?:\\\n.*)*)`).FindAllStringSubmatch(df, -1) {
		env := map[string]string{}
		for _, kv := range strings.Fields(strings.ReplaceAll(m[1], "\\\n", " ")) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		checkEnv(t, "Dockerfile ENV", env)
	}
}

// helmFuncs stands in for the few Helm (sprig) functions the chart uses.
func helmFuncs(tpl **template.Template) template.FuncMap {
	return template.FuncMap{
		"include": func(name string, data any) (string, error) {
			var b strings.Builder
			err := (*tpl).ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
		"toYaml": func(v any) (string, error) {
			b, err := yaml.Marshal(v)
			return strings.TrimSuffix(string(b), "\n"), err
		},
		"nindent": func(n int, s string) string {
			pad := strings.Repeat(" ", n)
			return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
		},
		"quote": func(v any) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
		"join": func(sep string, list []any) string {
			s := make([]string, len(list))
			for i, v := range list {
				s[i] = fmt.Sprint(v)
			}
			return strings.Join(s, sep)
		},
		"trunc": func(n int, s string) string {
			if len(s) > n {
				return s[:n]
			}
			return s
		},
		"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		// Helm's required and fail end the rendering with their message.
		"required": func(msg string, v any) (any, error) {
			if v == nil || v == "" {
				return nil, errors.New(msg)
			}
			return v, nil
		},
		"fail": func(msg string) (string, error) { return "", errors.New(msg) },
		"dict": func(kv ...any) (map[string]any, error) {
			if len(kv)%2 != 0 {
				return nil, errors.New("dict: odd number of arguments")
			}
			m := map[string]any{}
			for i := 0; i < len(kv); i += 2 {
				m[fmt.Sprint(kv[i])] = kv[i+1]
			}
			return m, nil
		},
		"set": func(m map[string]any, k string, v any) map[string]any {
			m[k] = v
			return m
		},
		"hasKey":   func(m map[string]any, k string) bool { _, ok := m[k]; return ok },
		"deepCopy": helmDeepCopy,
		// sprig's mustMergeOverwrite: src's keys over dst's, maps merged
		// key by key, anything else replaced.
		"mustMergeOverwrite": func(dst map[string]any, srcs ...any) (map[string]any, error) {
			for _, src := range srcs {
				if src == nil {
					continue
				}
				m, ok := src.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("mustMergeOverwrite: %T is not a map", src)
				}
				helmMerge(dst, m)
			}
			return dst, nil
		},
		"regexFindAll": func(re, s string, n int) ([]string, error) {
			r, err := regexp.Compile(re)
			if err != nil {
				return nil, err
			}
			return r.FindAllString(s, n), nil
		},
		"regexReplaceAll": func(re, s, repl string) (string, error) {
			r, err := regexp.Compile(re)
			if err != nil {
				return "", err
			}
			return r.ReplaceAllString(s, repl), nil
		},
		"sha256sum": func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) },
	}
}

// helmDeepCopy copies decoded YAML (maps and lists) so that set on the copy
// leaves the values alone.
func helmDeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = helmDeepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = helmDeepCopy(e)
		}
		return l
	}
	return v
}

func helmMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				helmMerge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// testAPIToken is the token the chart tests set: the chart has none.
const testAPIToken = "test-token-0123456789abcdef"

// withToken sets the chart's API token, then applies set.
func withToken(set func(values map[string]any)) func(values map[string]any) {
	return func(v map[string]any) {
		v["secret"].(map[string]any)["apiToken"] = testAPIToken
		if set != nil {
			set(v)
		}
	}
}

// renderChart renders every template of the chart with its values.yaml,
// changed by set when not nil, and returns the documents by file.
func renderChart(t *testing.T, set func(values map[string]any)) map[string][]map[string]any {
	t.Helper()
	out, err := renderChartErr(t, set)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// renderChartErr is renderChart returning a rendering error (what helm
// install would print) instead of failing.
func renderChartErr(t *testing.T, set func(values map[string]any)) (map[string][]map[string]any, error) {
	t.Helper()
	dir := filepath.Join(deployDir, "helm", "robustream")
	var chart map[string]any
	readYAML(t, filepath.Join(dir, "Chart.yaml"), &chart)
	var values map[string]any
	readYAML(t, filepath.Join(dir, "values.yaml"), &values)
	if set != nil {
		set(values)
	}
	data := map[string]any{
		"Values":  values,
		"Release": map[string]any{"Name": "rs", "Namespace": "default"},
		"Chart":   map[string]any{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"]},
	}
	var tpl *template.Template
	tpl = template.New("chart").Funcs(helmFuncs(&tpl))
	files, err := filepath.Glob(filepath.Join(dir, "templates", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tpl.New(filepath.Base(f)).Parse(string(b)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	out := map[string][]map[string]any{}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "_") {
			continue
		}
		var b bytes.Buffer
		if err := tpl.ExecuteTemplate(&b, name, data); err != nil {
			return nil, fmt.Errorf("render %s: %w", name, err)
		}
		if strings.Contains(b.String(), "<no value>") {
			t.Errorf("%s renders a missing value:\n%s", name, b.String())
		}
		dec := yaml.NewDecoder(&b)
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%s renders invalid YAML: %v", name, err)
				}
				break
			}
			if doc != nil {
				out[name] = append(out[name], doc)
			}
		}
	}
	return out, nil
}

// yget walks a decoded YAML document.
func yget(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestDeployHelm(t *testing.T) {
	docs := renderChart(t, withToken(nil))
	inputs := map[string][]string{}
	for _, s := range registry() {
		inputs[s.name] = s.inputs
	}
	var values struct {
		HTTPPort int `yaml:"httpPort"`
	}
	readYAML(t, filepath.Join(deployDir, "helm", "robustream", "values.yaml"), &values)

	deployments := map[string][]string{} // name → stages
	var run [][]string
	var configMap map[string]any
	kinds := map[string]int{}
	for file, ds := range docs {
		for _, d := range ds {
			kind, _ := d["kind"].(string)
			kinds[kind]++
			if d["apiVersion"] == nil || yget(d, "metadata", "name") == nil {
				t.Errorf("%s: a %s without apiVersion or metadata.name", file, kind)
			}
			switch kind {
			case "ConfigMap":
				configMap = d
			case "Deployment", "Job":
				name := fmt.Sprint(yget(d, "metadata", "name"))
				c := yget(d, "spec", "template", "spec", "containers", 0)
				checkImage(t, name, fmt.Sprint(yget(c, "image")))
				env := map[string]string{}
				for _, e := range yget(c, "env").([]any) {
					env[fmt.Sprint(yget(e, "name"))] = fmt.Sprint(yget(e, "value"))
				}
				checkEnv(t, file+" "+name, env)
				if kind == "Job" {
					continue
				}
				stages := strings.Split(env["ROBUSTREAM_STAGES"], ",")
				deployments[name] = stages
				run = append(run, stages)
				if p := yget(c, "ports", 0); fmt.Sprint(yget(p, "name")) != "http" || yget(p, "containerPort") != values.HTTPPort {
					t.Errorf("%s: port %v, want http %d", name, p, values.HTTPPort)
				}
				for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
					if yget(c, probe, "httpGet", "path") != path || yget(c, probe, "httpGet", "port") != "http" {
						t.Errorf("%s: %s is %v, want GET %s on port http", name, probe, yget(c, probe), path)
					}
				}
			}
		}
	}
	for _, k := range []string{"ConfigMap", "Secret", "Deployment", "ScaledObject", "Service", "Job"} {
		if kinds[k] == 0 {
			t.Errorf("the chart renders no %s", k)
		}
	}
	checkCoverage(t, "helm chart", run)
	for _, d := range docs["scaledobjects.yaml"] {
		target := fmt.Sprint(yget(d, "spec", "scaleTargetRef", "name"))
		stages, ok := deployments[target]
		if !ok {
			t.Errorf("ScaledObject %v scales %s, which is no Deployment", yget(d, "metadata", "name"), target)
		}
		for _, tr := range yget(d, "spec", "triggers").([]any) {
			group := fmt.Sprint(yget(tr, "metadata", "consumerGroup"))
			topic := fmt.Sprint(yget(tr, "metadata", "topic"))
			stage := strings.TrimPrefix(group, "robustream.")
			if yget(tr, "type") != "kafka" || !slices.Contains(inputs[stage], topic) {
				t.Errorf("%s: trigger on group %s topic %s: not an input of a registered stage", target, group, topic)
			}
			if !slices.Contains(stages, stage) && !(strings.HasPrefix(stage, "sink.") && slices.Contains(stages, "sinks")) {
				t.Errorf("%s: scaled on the lag of %s, which it does not run (%v)", target, stage, stages)
			}
		}
	}

	// The engine's verdict on the rendered configuration, per Deployment.
	if configMap == nil {
		t.Fatal("no ConfigMap")
	}
	dir := t.TempDir()
	for _, f := range []string{"robustream.yaml", "models.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(fmt.Sprint(yget(configMap, "data", f))), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, stages := range deployments {
		deployDryRun(t, "Deployment "+name, map[string]string{"ROBUSTREAM_CONFIG": filepath.Join(dir, "robustream.yaml"),
			"ROBUSTREAM_MODELS": filepath.Join(dir, "models.yaml"), "ROBUSTREAM_DATA_DIR": t.TempDir(),
			"ROBUSTREAM_STAGES": strings.Join(stages, ","), "ROBUSTREAM_API_TOKEN": "t",
			"ROBUSTREAM_CLICKHOUSE_URL": "clickhouse://u:p@clickhouse:9000/robustream"})
	}

	// The probes exist: the HTTP server registers them (http.go).
	src, err := os.ReadFile("http.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{`"GET /healthz"`, `"GET /readyz"`, `"GET /metrics"`} {
		if !bytes.Contains(src, []byte(p)) {
			t.Errorf("http.go serves no %s", p)
		}
	}
}

// TestDeployHelmCluster: with clickhouse.cluster set, the chart's
// configuration names the cluster, and the engine accepts it.
func TestDeployHelmCluster(t *testing.T) {
	docs := renderChart(t, withToken(func(v map[string]any) { v["clickhouse"] = map[string]any{"cluster": "analytics"} }))
	if len(docs["configmap.yaml"]) != 1 {
		t.Fatal("no ConfigMap")
	}
	cm := docs["configmap.yaml"][0]
	var cfg struct {
		ClickHouse struct{ Cluster string } `yaml:"clickhouse"`
	}
	conf := fmt.Sprint(yget(cm, "data", "robustream.yaml"))
	if err := yaml.Unmarshal([]byte(conf), &cfg); err != nil || cfg.ClickHouse.Cluster != "analytics" {
		t.Fatalf("robustream.yaml (%v) names cluster %q:\n%s", err, cfg.ClickHouse.Cluster, conf)
	}
	dir := t.TempDir()
	for _, f := range []string{"robustream.yaml", "models.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(fmt.Sprint(yget(cm, "data", f))), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	deployDryRun(t, "the sinks with a cluster", map[string]string{"ROBUSTREAM_CONFIG": filepath.Join(dir, "robustream.yaml"),
		"ROBUSTREAM_MODELS": filepath.Join(dir, "models.yaml"), "ROBUSTREAM_DATA_DIR": t.TempDir(),
		"ROBUSTREAM_STAGES": "sinks", "ROBUSTREAM_API_TOKEN": "t",
		"ROBUSTREAM_CLICKHOUSE_URL": "clickhouse://u:p@clickhouse:9000/robustream"})
}

// grafanaMacros expands the ClickHouse data source's macros the dashboard
// uses, with the whole time range.
var grafanaMacros = regexp.MustCompile(`\$__timeFilter\(([^)]+)\)`)

func TestDeployGrafanaQueries(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "grafana", "dashboards", "robustream.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title      string `json:"title"`
			Datasource struct {
				UID string `json:"uid"`
			} `json:"datasource"`
			Targets []struct {
				RawSQL string `json:"rawSql"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	if dash.UID == "" || len(dash.Panels) == 0 {
		t.Fatal("dashboard without uid or panels")
	}
	dataDir := t.TempDir()
	robustream(t, "migrate", "--data-dir", dataDir)
	for _, p := range dash.Panels {
		if p.Datasource.UID != "robustream-clickhouse" {
			t.Errorf("panel %q: data source %q is not the provisioned robustream-clickhouse", p.Title, p.Datasource.UID)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			q := grafanaMacros.ReplaceAllString(tg.RawSQL, "($1 >= toDateTime(0) AND $1 <= now())")
			if strings.Contains(q, "$") {
				t.Errorf("panel %q: unexpanded macro or variable in %s", p.Title, q)
				continue
			}
			if out, err := runBinary(nil, "sql", "--data-dir", dataDir, q); err != nil {
				t.Errorf("panel %q: %v\n%s\n%s", p.Title, err, q, out)
			}
		}
	}
}

// TestDeployHelmRequiresToken: the chart has no default API token. As
// shipped it refuses to render, naming the value to set; a short or the old
// placeholder token is refused too; an existing Secret needs none.
func TestDeployHelmRequiresToken(t *testing.T) {
	for _, c := range []struct {
		name  string
		token string
		want  string
	}{
		{"as shipped", "", "secret.apiToken is required"},
		{"the old placeholder", "change-me", "at least 16 characters"},
		{"short", "abc123", "at least 16 characters"},
	} {
		_, err := renderChartErr(t, func(v map[string]any) { v["secret"].(map[string]any)["apiToken"] = c.token })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: rendering gave %v, want an error saying %q", c.name, err, c.want)
		}
	}
	docs := renderChart(t, withToken(nil))
	if len(docs["secret.yaml"]) != 1 || yget(docs["secret.yaml"][0], "stringData", "api-token") != testAPIToken {
		t.Errorf("with a token set, the Secret does not carry it: %v", docs["secret.yaml"])
	}
	docs = renderChart(t, func(v map[string]any) { v["secret"].(map[string]any)["existingSecret"] = "mine" })
	if len(docs["secret.yaml"]) != 0 {
		t.Errorf("with existingSecret the chart still renders a Secret: %v", docs["secret.yaml"])
	}
	// The compose file has no default token either.
	b, err := os.ReadFile(filepath.Join(deployDir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "change-me}") || !strings.Contains(string(b), "${ROBUSTREAM_API_TOKEN:?") {
		t.Error("docker-compose.yml must require ROBUSTREAM_API_TOKEN (${ROBUSTREAM_API_TOKEN:?…}), not default it")
	}
}

// podFS lays out what a pod of the chart would see, under a temporary
// directory: each volume's files at its mount path (the ConfigMap's data,
// a Secret's keys), and the pod's environment with every valueFrom and
// envFrom resolved from secrets (name → key → value), as the kubelet would.
// Paths of mounts in the configuration and the environment are rewritten to
// the directory's. It fails on a reference to a missing Secret or key: the
// pod would not start.
func podFS(t *testing.T, docs map[string][]map[string]any, container any, podSpec any, secrets map[string]map[string]string) map[string]string {
	t.Helper()
	root := t.TempDir()
	configMaps := map[string]map[string]any{}
	for _, d := range docs["configmap.yaml"] {
		configMaps[fmt.Sprint(yget(d, "metadata", "name"))], _ = yget(d, "data").(map[string]any)
	}
	volumes := map[string]map[string]string{} // volume name → file → content
	for _, v := range yget(podSpec, "volumes").([]any) {
		name := fmt.Sprint(yget(v, "name"))
		files := map[string]string{}
		switch {
		case yget(v, "configMap") != nil:
			cm, ok := configMaps[fmt.Sprint(yget(v, "configMap", "name"))]
			if !ok {
				t.Fatalf("volume %s: no ConfigMap %v", name, yget(v, "configMap", "name"))
			}
			for k, c := range cm {
				files[k] = fmt.Sprint(c)
			}
		case yget(v, "secret") != nil:
			s, ok := secrets[fmt.Sprint(yget(v, "secret", "secretName"))]
			if !ok {
				t.Fatalf("volume %s: no Secret %v", name, yget(v, "secret", "secretName"))
			}
			maps.Copy(files, s)
		case yget(v, "emptyDir") != nil:
		default:
			t.Fatalf("volume %s: unknown kind %v", name, v)
		}
		volumes[name] = files
	}
	var mounts [][2]string // mount path → directory
	for _, m := range yget(container, "volumeMounts").([]any) {
		dir := filepath.Join(root, fmt.Sprint(yget(m, "name")))
		mounts = append(mounts, [2]string{fmt.Sprint(yget(m, "mountPath")), dir})
	}
	// Longest mount path first, so /etc/robustream-kafka-ca is not taken
	// for /etc/robustream.
	slices.SortFunc(mounts, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	rewrite := func(s string) string {
		for _, m := range mounts {
			s = strings.ReplaceAll(s, m[0], m[1])
		}
		return s
	}
	for _, m := range yget(container, "volumeMounts").([]any) {
		name := fmt.Sprint(yget(m, "name"))
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for f, c := range volumes[name] {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(rewrite(c)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	secretKey := func(ref any) string {
		name, key := fmt.Sprint(yget(ref, "name")), fmt.Sprint(yget(ref, "key"))
		v, ok := secrets[name][key]
		if !ok {
			t.Fatalf("the pod reads key %s of Secret %s, which does not exist", key, name)
		}
		return v
	}
	env := map[string]string{}
	if from, ok := yget(container, "envFrom").([]any); ok {
		for _, f := range from {
			s, ok := secrets[fmt.Sprint(yget(f, "secretRef", "name"))]
			if !ok {
				t.Fatalf("envFrom %v: no such Secret", f)
			}
			maps.Copy(env, s)
		}
	}
	for _, e := range yget(container, "env").([]any) {
		name := fmt.Sprint(yget(e, "name"))
		switch {
		case yget(e, "valueFrom", "secretKeyRef") != nil:
			env[name] = secretKey(yget(e, "valueFrom", "secretKeyRef"))
		default:
			env[name] = rewrite(fmt.Sprint(yget(e, "value")))
		}
	}
	return env
}

// podOf returns the container and pod spec of the Deployment named name.
func podOf(t *testing.T, docs map[string][]map[string]any, name string) (container, spec any) {
	t.Helper()
	for _, d := range docs["deployments.yaml"] {
		if yget(d, "metadata", "name") == name {
			return yget(d, "spec", "template", "spec", "containers", 0), yget(d, "spec", "template", "spec")
		}
	}
	t.Fatalf("no Deployment %s", name)
	return nil, nil
}

// chartSecrets are the Secrets of the test's cluster, with the chart's own
// Secret as rendered.
func chartSecrets(docs map[string][]map[string]any, extra map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, d := range docs["secret.yaml"] {
		m := map[string]string{}
		for k, v := range yget(d, "stringData").(map[string]any) {
			m[k] = fmt.Sprint(v)
		}
		out[fmt.Sprint(yget(d, "metadata", "name"))] = m
	}
	maps.Copy(out, extra)
	return out
}

// TestDeployHelmSecrets: a model's API key, a RAG endpoint's header token,
// the generator's key, an alert receiver's URL and the Kafka SASL password
// all come from Secrets; Kafka TLS trusts a CA from a Secret; extraConfig
// reaches the configuration. Each pod, given the environment and files the
// chart gives it (Secrets resolved), passes `robustream run --dry-run`.
// Without the Secret reference for a key the chart refuses to render,
// naming the variable, and the engine refuses the pod's configuration.
func TestDeployHelmSecrets(t *testing.T) {
	set := func(v map[string]any) {
		v["models"] = []any{
			map[string]any{"id": "builtin:lexical", "kind": "builtin"},
			map[string]any{"id": "gpt", "kind": "openai", "base_url": "https://api.example.com/v1", "model": "gpt-x", "api_key_env": "OPENAI_API_KEY"},
			map[string]any{"id": "shop-rag", "kind": "rag-endpoint", "url": "http://rag.shop:8000/ask",
				"headers": map[string]any{"Authorization": "Bearer ${RAG_TOKEN}"}, "answer_field": "answer"},
		}
		v["generator"] = map[string]any{"id": "gen", "kind": "openai", "base_url": "https://api.example.com/v1", "model": "gen-x", "api_key_env": "GEN_KEY"}
		v["embedder"] = map[string]any{"id": "emb", "kind": "openai", "base_url": "http://emb:8000/v1", "model": "e5"}
		v["secretEnv"] = []any{
			map[string]any{"name": "OPENAI_API_KEY", "secretName": "llm-keys", "key": "openai"},
			map[string]any{"name": "RAG_TOKEN", "secretName": "rag", "key": "token"},
			map[string]any{"name": "SLACK_URL", "secretName": "alerting", "key": "slack"},
		}
		v["env"] = []any{map[string]any{"name": "GEN_KEY", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "llm-keys", "key": "gen"}}}}
		kafka := v["kafka"].(map[string]any)
		kafka["sasl"] = map[string]any{"mechanism": "scram-sha-512", "user": "robustream", "passwordSecret": map[string]any{"name": "kafka-user", "key": "password"}}
		kafka["tls"] = map[string]any{"enabled": true, "caSecret": "kafka-ca", "caKey": "ca.crt"}
		v["alerts"].(map[string]any)["receivers"] = []any{map[string]any{"name": "chat", "kind": "slack", "url": "${SLACK_URL}"}}
		v["stages"] = map[string]any{"infer": map[string]any{"timeout": "90s"}}
		v["extraConfig"] = map[string]any{"http_read_timeout": "45s", "kafka": map[string]any{"partitions": 6}}
	}
	docs := renderChart(t, withToken(set))
	secrets := chartSecrets(docs, map[string]map[string]string{
		"llm-keys":   {"openai": "sk-test-openai", "gen": "sk-test-gen"},
		"rag":        {"token": "rag-token"},
		"alerting":   {"slack": "https://hooks.slack.example/T0/B0/x"},
		"kafka-user": {"password": "kafka-pass"},
		"kafka-ca":   {"ca.crt": "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"},
	})
	var cfg struct {
		HTTPReadTimeout string         `yaml:"http_read_timeout"`
		Kafka           map[string]any `yaml:"kafka"`
		Stages          map[string]any `yaml:"stages"`
		Source          string         `yaml:"source"`
	}
	conf := fmt.Sprint(yget(docs["configmap.yaml"][0], "data", "robustream.yaml"))
	if err := yaml.Unmarshal([]byte(conf), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPReadTimeout != "45s" || cfg.Kafka["partitions"] != 6 || cfg.Kafka["brokers"] == nil || cfg.Kafka["sasl_password_env"] != "KAFKA_SASL_PASSWORD" ||
		cfg.Kafka["tls_ca_file"] != "/etc/robustream-kafka-ca/ca.crt" || yget(cfg.Stages, "infer", "timeout") != "90s" || cfg.Source != "none" {
		t.Errorf("rendered robustream.yaml misses a value or extraConfig:\n%s", conf)
	}
	for _, name := range []string{"rs-robustream-infer", "rs-robustream-sinks", "rs-robustream-alerts"} {
		c, spec := podOf(t, docs, name)
		env := podFS(t, docs, c, spec, secrets)
		if env["OPENAI_API_KEY"] != "sk-test-openai" || env["KAFKA_SASL_PASSWORD"] != "kafka-pass" {
			t.Errorf("%s: the pod's env does not carry the secrets: %v", name, env)
		}
		env["ROBUSTREAM_DATA_DIR"] = t.TempDir() // /data, an emptyDir
		deployDryRun(t, name+" with secrets", env)
	}

	// Without the reference for GEN_KEY: the chart names it and refuses.
	_, err := renderChartErr(t, withToken(func(v map[string]any) { set(v); v["env"] = []any{} }))
	if err == nil || !strings.Contains(err.Error(), "GEN_KEY is set by none of env, secretEnv or envFrom") {
		t.Errorf("a key without a Secret reference rendered: %v", err)
	}
	// With envFrom the chart cannot know the names: it renders, and the
	// engine's verdict on a pod whose envFrom lacks the key names it.
	docs = renderChart(t, withToken(func(v map[string]any) {
		set(v)
		v["env"] = []any{}
		v["envFrom"] = []any{map[string]any{"secretRef": map[string]any{"name": "more"}}}
	}))
	c, spec := podOf(t, docs, "rs-robustream-infer")
	env := podFS(t, docs, c, spec, chartSecrets(docs, map[string]map[string]string{
		"llm-keys": {"openai": "k"}, "rag": {"token": "t"}, "alerting": {"slack": "https://x.example/"},
		"kafka-user": {"password": "p"}, "kafka-ca": {"ca.crt": "x"}, "more": {"OTHER": "1"}}))
	env["ROBUSTREAM_DATA_DIR"] = t.TempDir()
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	list = append(list, "GEN_KEY=") // the test's own environment must not supply it
	out, err := runBinary(list, "run", "--dry-run")
	if err == nil || !strings.Contains(out, "GEN_KEY is not set") {
		t.Errorf("a pod without GEN_KEY passed --dry-run (%v):\n%s", err, out)
	}
}

// TestDeployHelmChecksum: the pods' checksum/config annotation is a hash
// of the rendered configuration and models: the same values give the same
// checksum, a changed model or configuration key another.
func TestDeployHelmChecksum(t *testing.T) {
	sum := func(set func(map[string]any)) string {
		docs := renderChart(t, withToken(set))
		var sums []string
		for _, d := range docs["deployments.yaml"] {
			sums = append(sums, fmt.Sprint(yget(d, "spec", "template", "metadata", "annotations", "checksum/config")))
		}
		slices.Sort(sums)
		sums = slices.Compact(sums)
		if len(sums) != 1 || len(sums[0]) != 64 {
			t.Fatalf("checksum/config differs between Deployments or is not a sha256: %v", sums)
		}
		return sums[0]
	}
	base := sum(nil)
	if again := sum(nil); again != base {
		t.Errorf("same values, checksums %s and %s", base, again)
	}
	for name, set := range map[string]func(map[string]any){
		"a model":     func(v map[string]any) { v["models"] = v["models"].([]any)[:1] },
		"log level":   func(v map[string]any) { v["log"] = map[string]any{"level": "debug"} },
		"extraConfig": func(v map[string]any) { v["extraConfig"] = map[string]any{"http_read_timeout": "45s"} },
	} {
		if s := sum(set); s == base {
			t.Errorf("%s changed: checksum/config did not (%s)", name, s)
		}
	}
	// No demo feed by default: no process of the chart runs the source stage.
	for _, d := range renderChart(t, withToken(nil))["deployments.yaml"] {
		for _, e := range yget(d, "spec", "template", "spec", "containers", 0, "env").([]any) {
			if yget(e, "name") == "ROBUSTREAM_SOURCE" || (yget(e, "name") == "ROBUSTREAM_STAGES" && slices.Contains(strings.Split(fmt.Sprint(yget(e, "value")), ","), "source")) {
				t.Errorf("%v runs a source by default: %v", yget(d, "metadata", "name"), e)
			}
		}
	}
}

// TestDeployHelmTemplate renders the chart with Helm itself when a helm
// binary is on PATH (skipped otherwise): the shipped values with a token,
// and the values of TestDeployHelmSecrets, render; the robustream.yaml and
// models.yaml Helm writes decode to what the stand-in renders; a key
// without its Secret reference fails Helm's rendering with the same
// message.
func TestDeployHelmTemplate(t *testing.T) {
	helm, err := exec.LookPath("helm")
	if err != nil {
		t.Skip("helm not on PATH")
	}
	chart := filepath.Join(deployDir, "helm", "robustream")
	render := func(values map[string]any) (string, error) {
		f := filepath.Join(t.TempDir(), "values.yaml")
		b, err := yaml.Marshal(values)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(helm, "template", "rs", chart, "-f", f).CombinedOutput()
		return string(out), err
	}
	valuesOf := func(set func(map[string]any)) map[string]any {
		var v map[string]any
		readYAML(t, filepath.Join(chart, "values.yaml"), &v)
		withToken(set)(v)
		return v
	}
	// Secret references, SASL/TLS, stages and extraConfig, as in
	// TestDeployHelmSecrets.
	secretsSet := func(v map[string]any) {
		v["models"] = []any{
			map[string]any{"id": "gpt", "kind": "openai", "base_url": "https://api.example.com/v1", "model": "gpt-x", "api_key_env": "OPENAI_API_KEY"},
			map[string]any{"id": "shop-rag", "kind": "rag-endpoint", "url": "http://rag.shop:8000/ask", "headers": map[string]any{"Authorization": "Bearer ${RAG_TOKEN}"}, "answer_field": "answer"},
		}
		v["secretEnv"] = []any{map[string]any{"name": "OPENAI_API_KEY", "secretName": "llm-keys", "key": "openai"},
			map[string]any{"name": "RAG_TOKEN", "secretName": "rag", "key": "token"}}
		v["kafka"].(map[string]any)["sasl"] = map[string]any{"mechanism": "plain", "user": "u", "passwordSecret": map[string]any{"name": "k", "key": "p"}}
		v["kafka"].(map[string]any)["tls"] = map[string]any{"enabled": true, "caSecret": "ca", "caKey": "ca.crt"}
		v["stages"] = map[string]any{"infer": map[string]any{"timeout": "90s"}}
		v["extraConfig"] = map[string]any{"http_read_timeout": "45s", "kafka": map[string]any{"partitions": 6}}
	}
	for name, set := range map[string]func(map[string]any){"shipped": nil, "secrets": secretsSet} {
		out, err := render(valuesOf(set))
		if err != nil {
			t.Errorf("%s: helm template: %v\n%s", name, err, out)
			continue
		}
		standIn := renderChart(t, withToken(set))
		dec := yaml.NewDecoder(strings.NewReader(out))
		found := false
		byFile := map[string][]map[string]any{} // as renderChart files them
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			switch doc["kind"] {
			case "Deployment":
				byFile["deployments.yaml"] = append(byFile["deployments.yaml"], doc)
			case "Secret":
				byFile["secret.yaml"] = append(byFile["secret.yaml"], doc)
			case "ConfigMap":
				byFile["configmap.yaml"] = append(byFile["configmap.yaml"], doc)
			}
			if doc["kind"] != "ConfigMap" {
				continue
			}
			found = true
			for _, f := range []string{"robustream.yaml", "models.yaml"} {
				var got, want any
				if err := yaml.Unmarshal([]byte(fmt.Sprint(yget(doc, "data", f))), &got); err != nil {
					t.Fatal(err)
				}
				if err := yaml.Unmarshal([]byte(fmt.Sprint(yget(standIn["configmap.yaml"][0], "data", f))), &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Helm's %s differs from the stand-in's:\nhelm: %v\nstand-in: %v", name, f, got, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: helm rendered no ConfigMap", name)
			continue
		}
		// The infer pod as Helm renders it passes --dry-run with its
		// Secrets resolved.
		c, spec := podOf(t, byFile, "rs-robustream-infer")
		env := podFS(t, byFile, c, spec, chartSecrets(byFile, map[string]map[string]string{
			"llm-keys": {"openai": "sk-1"}, "rag": {"token": "t"}, "k": {"p": "kafka-pass"},
			"ca": {"ca.crt": "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"}}))
		env["ROBUSTREAM_DATA_DIR"] = t.TempDir()
		deployDryRun(t, name+": the infer pod Helm renders", env)
	}
	out, err := render(valuesOf(func(v map[string]any) { secretsSet(v); v["secretEnv"] = []any{} }))
	if err == nil || !strings.Contains(out, "OPENAI_API_KEY is set by none of env, secretEnv or envFrom") {
		t.Errorf("helm rendered a key without its Secret reference: %v\n%s", err, out)
	}
}
