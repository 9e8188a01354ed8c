package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/run"
)

// TestK8sIndexedJob checks the Kubernetes example of docs/batch.md
// without a cluster: the manifest parses, the Job is an Indexed
// Job whose completions match the N of --shard and whose index picks the
// shard, everything it names (ConfigMaps, keys, the claim, mounts) is in
// the file, the tools ConfigMap loads as a tools directory, and each line
// of the prompts is a request.
func TestK8sIndexedJob(t *testing.T) {
	f, err := os.Open(filepath.Join(moduleRoot, "testdata", "k8s", "batch-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byKind := map[string][]k8sObject{}
	dec := yaml.NewDecoder(f)
	for {
		var doc k8sObject
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if doc.str("apiVersion") == "" || doc.str("kind") == "" || doc.get("metadata").str("name") == "" {
			t.Errorf("an object without apiVersion, kind or metadata.name: %v", doc)
		}
		byKind[doc.str("kind")] = append(byKind[doc.str("kind")], doc)
	}
	configMaps := map[string]k8sObject{}
	for _, cm := range byKind["ConfigMap"] {
		configMaps[cm.get("metadata").str("name")] = cm.get("data")
	}
	claims := map[string]bool{}
	for _, pvc := range byKind["PersistentVolumeClaim"] {
		claims[pvc.get("metadata").str("name")] = true
	}
	if len(byKind["Job"]) != 1 {
		t.Fatalf("%d Jobs, want 1", len(byKind["Job"]))
	}
	job := byKind["Job"][0]
	if job.str("apiVersion") != "batch/v1" {
		t.Errorf("Job apiVersion %q, want batch/v1", job.str("apiVersion"))
	}
	spec := job.get("spec")
	if spec.str("completionMode") != "Indexed" {
		t.Errorf("completionMode %q, want Indexed: JOB_COMPLETION_INDEX picks the shard", spec.str("completionMode"))
	}
	completions := spec.int("completions")
	if completions < 1 || spec.int("parallelism") < 1 || spec.int("parallelism") > completions {
		t.Errorf("completions %d, parallelism %d", completions, spec.int("parallelism"))
	}
	pod := spec.get("template").get("spec")
	if rp := pod.str("restartPolicy"); rp != "Never" && rp != "OnFailure" {
		t.Errorf("restartPolicy %q: a Job needs Never or OnFailure", rp)
	}

	volumes := map[string]k8sObject{}
	for _, v := range pod.list("volumes") {
		volumes[v.str("name")] = v
		if cm := v.get("configMap"); cm != nil {
			data, ok := configMaps[cm.str("name")]
			if !ok {
				t.Errorf("volume %s: no ConfigMap %q in the file", v.str("name"), cm.str("name"))
			}
			for _, item := range cm.list("items") {
				if _, ok := data[item.str("key")]; !ok {
					t.Errorf("volume %s: ConfigMap %s has no key %q", v.str("name"), cm.str("name"), item.str("key"))
				}
			}
		}
		if pvc := v.get("persistentVolumeClaim"); pvc != nil && !claims[pvc.str("claimName")] {
			t.Errorf("volume %s: no PersistentVolumeClaim %q in the file", v.str("name"), pvc.str("claimName"))
		}
	}
	containers := pod.list("containers")
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	c := containers[0]
	if c.str("image") == "" {
		t.Error("the container has no image")
	}
	mounts := map[string]string{} // mount path -> volume
	for _, m := range c.list("volumeMounts") {
		if _, ok := volumes[m.str("name")]; !ok {
			t.Errorf("volumeMount %s: no such volume", m.str("name"))
		}
		mounts[m.str("mountPath")] = m.str("name")
	}
	env := map[string]bool{}
	for _, e := range c.list("env") {
		env[e.str("name")] = true
		if ref := e.get("valueFrom").get("configMapKeyRef"); ref != nil {
			if _, ok := configMaps[ref.str("name")][ref.str("key")]; !ok {
				t.Errorf("env %s: ConfigMap %s has no key %q", e.str("name"), ref.str("name"), ref.str("key"))
			}
		}
	}
	if !env["OPENAI_BASE_URL"] {
		t.Error("no OPENAI_BASE_URL in the container's env: the pods would ask 127.0.0.1")
	}

	// The arguments are a valid toolcall run --batch, sharded by the
	// index, reading and writing under the mounts.
	args := c.strings("args")
	if len(args) == 0 || args[0] != "run" {
		t.Fatalf("args %q: want toolcall run ...", args)
	}
	flag := func(name string) string {
		i := slices.Index(args, name)
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("args %q: no %s", args, name)
		}
		return args[i+1]
	}
	if want := "$(JOB_COMPLETION_INDEX)/" + strconv.Itoa(completions); flag("--shard") != want {
		t.Errorf("--shard %s, want %s: one shard per completion index", flag("--shard"), want)
	}
	for _, i := range []int{0, completions - 1} {
		if _, err := run.ParseShard(strings.ReplaceAll(flag("--shard"), "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))); err != nil {
			t.Errorf("index %d: %v", i, err)
		}
	}
	under := func(path string) string {
		for dir, vol := range mounts {
			if path == dir || strings.HasPrefix(path, dir+"/") {
				return vol
			}
		}
		t.Errorf("%s is under no volumeMount", path)
		return ""
	}
	for _, name := range []string{"--batch", "--tools", "--out"} {
		under(flag(name))
	}
	cmd := newRunCmd(strings.NewReader(""), io.Discard, io.Discard)
	if err := cmd.ParseFlags(args[1:]); err != nil {
		t.Errorf("toolcall run %s: %v", strings.Join(args[1:], " "), err)
	}

	// The ConfigMap behind --tools is a tools directory that loads.
	toolsCM := configMaps[volumes[under(flag("--tools"))].get("configMap").str("name")]
	dir := t.TempDir()
	for name, content := range toolsCM {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprint(content)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load([]string{dir}, catalog.LoadOptions{})
	if err != nil {
		t.Errorf("the tools ConfigMap: %v", err)
	} else if len(cat.All()) == 0 {
		t.Error("the tools ConfigMap holds no tool")
	}

	// Each line of the prompts is a request with an id.
	batchVol := volumes[under(flag("--batch"))].get("configMap")
	prompts := fmt.Sprint(configMaps[batchVol.str("name")][filepath.Base(flag("--batch"))])
	lines := strings.Split(strings.TrimSpace(prompts), "\n")
	if len(lines) < completions {
		t.Errorf("%d prompts for %d shards", len(lines), completions)
	}
	for i, line := range lines {
		if _, err := run.ParseInput([]byte(line)); err != nil || !strings.Contains(line, `"id"`) {
			t.Errorf("prompt line %d %q: %v", i+1, line, err)
		}
	}
}

// k8sObject is a YAML mapping, read loosely.
type k8sObject map[string]any

func (o k8sObject) get(key string) k8sObject { return asObject(o[key]) }

// asObject is v as a mapping: the decoder gives nested mappings the type
// of the outer one.
func asObject(v any) k8sObject {
	switch m := v.(type) {
	case k8sObject:
		return m
	case map[string]any:
		return m
	}
	return nil
}

func (o k8sObject) str(key string) string {
	s, _ := o[key].(string)
	return s
}

func (o k8sObject) int(key string) int {
	n, _ := o[key].(int)
	return n
}

func (o k8sObject) list(key string) []k8sObject {
	var out []k8sObject
	l, _ := o[key].([]any)
	for _, v := range l {
		out = append(out, asObject(v))
	}
	return out
}

func (o k8sObject) strings(key string) []string {
	var out []string
	l, _ := o[key].([]any)
	for _, v := range l {
		out = append(out, fmt.Sprint(v))
	}
	return out
}
