// Command openapi-v2-proto checks Ordinal's /openapi/v2 in protobuf against its JSON, as client-go
// reads it: the protobuf is unmarshalled into gnostic's openapi_v2.Document (what
// DiscoveryClient.OpenAPISchema does), turned back into YAML with gnostic's ToRawInfo and compared
// with the JSON document value by value. It also parses the JSON with gnostic's own
// openapi_v2.ParseDocument (what upstream's kube-openapi handler encodes from) and checks the two
// messages are equal, so Ordinal answers what an upstream apiserver would for the same document.
// Every difference is printed; the exit code is 1 if there is any.
//
// Usage: go run . v2.json v2.pb   (GOFLAGS=-mod=mod)
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: openapi-v2-proto DOCUMENT.json DOCUMENT.pb")
		os.Exit(2)
	}
	jsonBytes, err := os.ReadFile(os.Args[1])
	check(err)
	pb, err := os.ReadFile(os.Args[2])
	check(err)

	ours := &openapi_v2.Document{}
	if err := proto.Unmarshal(pb, ours); err != nil {
		fail("the protobuf does not unmarshal as openapi_v2.Document: %v", err)
	}
	fromProto, err := ours.YAMLValue("")
	check(err)
	var decoded, expected interface{}
	check(yaml.Unmarshal(fromProto, &decoded))
	check(json.Unmarshal(jsonBytes, &expected))
	differences := 0
	compare("", normalize(expected), normalize(decoded), &differences)

	upstream, err := openapi_v2.ParseDocument(jsonBytes)
	if err != nil {
		fmt.Printf("gnostic does not parse the JSON document: %v\n", err)
		differences++
	} else if !proto.Equal(ours, upstream) {
		fmt.Printf("the protobuf differs from gnostic's encoding of the JSON (-gnostic +ours):\n%s\n",
			cmp.Diff(upstream, ours, protocmp.Transform()))
		differences++
	} else {
		upstreamBytes, err := proto.Marshal(upstream)
		check(err)
		fmt.Printf("equal to gnostic's encoding of the JSON; byte for byte: %v\n", bytes.Equal(pb, upstreamBytes))
	}
	fmt.Printf("%d paths, %d definitions, %d bytes; %d differences\n", len(ours.GetPaths().GetPath()),
		len(ours.GetDefinitions().GetAdditionalProperties()), len(pb), differences)
	if differences > 0 {
		os.Exit(1)
	}
}

// normalize makes JSON's and YAML's decodings comparable: numbers as float64, maps with string keys.
func normalize(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case map[interface{}]interface{}:
		out := map[string]interface{}{}
		for k, e := range t {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	default:
		return v
	}
}

func compare(path string, want, got interface{}, differences *int) {
	switch w := want.(type) {
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			report(path, want, got, differences)
			return
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			compare(path+"/"+k, w[k], g[k], differences)
		}
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(w) {
			report(path, want, got, differences)
			return
		}
		for i := range w {
			compare(fmt.Sprintf("%s/%d", path, i), w[i], g[i], differences)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			report(path, want, got, differences)
		}
	}
}

func report(path string, want, got interface{}, differences *int) {
	*differences++
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	fmt.Printf("%s: JSON has %s, the protobuf %s\n", path, w, g)
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
