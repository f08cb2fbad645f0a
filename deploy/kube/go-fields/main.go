// Command go-fields writes how upstream's Go API types serialize each JSON field, for the kinds
// Ordinal serves: whether encoding/json always writes it (no omitempty or omitzero, or a struct
// value, which omitempty never omits) with the JSON of its zero value, when it leaves it out
// (omitempty: an empty value; omitzero: a zero one), the Go kind that decides what empty means, and
// the type below it. The service fills in what a response lacks from it, so that clients generated
// from upstream's types (which rely on these fields) accept it, and writes a pod template as Go
// does to hash it as upstream's controller does.
// Regenerate with: cd deploy/kube/go-fields && go run . > ../../../activities/src/main/resources/io/ordinal/kube/go-fields.json
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// field is one JSON field of a struct type: always present or not, its zero value's JSON, and the
// struct type below it (of the field, or of its elements), if any.
type field struct {
	Name   string          `json:"name"`
	Always bool            `json:"always"`
	Zero   json.RawMessage `json:"zero,omitempty"`
	Type   string          `json:"type,omitempty"`
	Shape  string          `json:"shape,omitempty"` // "", "list" or "map": how Type is reached
	Omit   string          `json:"omit,omitempty"`  // "empty" (omitempty) or "zero" (omitzero)
	Kind   string          `json:"kind"`            // the field's Go kind: ptr, slice, map, struct, string, int, ...
	Codec  string          `json:"codec,omitempty"` // a type with its own MarshalJSON below the field (Quantity, Time, ...)
}

type output struct {
	Kinds map[string]string  `json:"kinds"` // apiVersion/kind -> type
	Types map[string][]field `json:"types"`
}

var marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

func name(t reflect.Type) string {
	return t.PkgPath() + "." + t.Name()
}

func main() {
	out := output{Kinds: map[string]string{}, Types: map[string][]field{}}
	kinds := map[string]interface{}{
		"apps/v1/StatefulSet": appsv1.StatefulSet{}, "apps/v1/StatefulSetList": appsv1.StatefulSetList{},
		"apps/v1/ControllerRevision": appsv1.ControllerRevision{}, "apps/v1/ControllerRevisionList": appsv1.ControllerRevisionList{},
		"autoscaling/v1/Scale": autoscalingv1.Scale{},
		"v1/Pod":               corev1.Pod{}, "v1/PodList": corev1.PodList{},
		"v1/PersistentVolumeClaim": corev1.PersistentVolumeClaim{}, "v1/PersistentVolumeClaimList": corev1.PersistentVolumeClaimList{},
		"v1/Event": corev1.Event{}, "v1/EventList": corev1.EventList{},
		"v1/Endpoints": corev1.Endpoints{},
		"v1/Namespace": corev1.Namespace{}, "v1/NamespaceList": corev1.NamespaceList{},
		"v1/ConfigMap": corev1.ConfigMap{}, "v1/ConfigMapList": corev1.ConfigMapList{},
		"v1/Secret": corev1.Secret{}, "v1/SecretList": corev1.SecretList{},
		"v1/ServiceAccount": corev1.ServiceAccount{}, "v1/ServiceAccountList": corev1.ServiceAccountList{},
		"v1/Service": corev1.Service{}, "v1/ServiceList": corev1.ServiceList{},
		"v1/Status":                         metav1.Status{},
		"discovery.k8s.io/v1/EndpointSlice": discoveryv1.EndpointSlice{}, "discovery.k8s.io/v1/EndpointSliceList": discoveryv1.EndpointSliceList{},
		"rbac.authorization.k8s.io/v1/Role": rbacv1.Role{}, "rbac.authorization.k8s.io/v1/RoleList": rbacv1.RoleList{},
		"rbac.authorization.k8s.io/v1/RoleBinding": rbacv1.RoleBinding{}, "rbac.authorization.k8s.io/v1/RoleBindingList": rbacv1.RoleBindingList{},
		"rbac.authorization.k8s.io/v1/ClusterRole": rbacv1.ClusterRole{}, "rbac.authorization.k8s.io/v1/ClusterRoleList": rbacv1.ClusterRoleList{},
		"rbac.authorization.k8s.io/v1/ClusterRoleBinding":     rbacv1.ClusterRoleBinding{},
		"rbac.authorization.k8s.io/v1/ClusterRoleBindingList": rbacv1.ClusterRoleBindingList{},
	}
	for kind, value := range kinds {
		t := reflect.TypeOf(value)
		out.Kinds[kind] = name(t)
		walk(t, out.Types)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", " ")
	if err := encoder.Encode(out); err != nil {
		panic(err)
	}
}

// walk records the fields of struct type t and of every struct type below it.
func walk(t reflect.Type, types map[string][]field) {
	if _, seen := types[name(t)]; seen {
		return
	}
	types[name(t)] = nil
	fields := []field{}
	collect(t, types, &fields)
	types[name(t)] = fields
}

func collect(t reflect.Type, types map[string][]field, fields *[]field) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		parts := strings.Split(tag, ",")
		jsonName := parts[0]
		omitempty := false
		omitzero := false
		inline := false
		for _, option := range parts[1:] {
			omitempty = omitempty || option == "omitempty"
			omitzero = omitzero || option == "omitzero"
			inline = inline || option == "inline"
		}
		if f.Anonymous && (inline || jsonName == "") && f.Type.Kind() == reflect.Struct {
			collect(f.Type, types, fields)
			continue
		}
		if jsonName == "" {
			jsonName = f.Name
		}
		entry := field{Name: jsonName}
		ft := f.Type
		structValue := ft.Kind() == reflect.Struct
		entry.Kind = kind(ft.Kind())
		switch {
		case omitzero:
			entry.Omit = "zero"
		case omitempty && !structValue:
			entry.Omit = "empty"
		}
		// encoding/json never omits a struct value for omitempty; omitzero omits a zero one.
		entry.Always = entry.Omit == ""
		if entry.Always {
			zero, err := json.Marshal(reflect.Zero(ft).Interface())
			if err != nil {
				panic(err)
			}
			entry.Zero = zero
		}
		below := ft
		switch below.Kind() {
		case reflect.Ptr:
			below = below.Elem()
		case reflect.Slice, reflect.Array:
			below = below.Elem()
			entry.Shape = "list"
		case reflect.Map:
			below = below.Elem()
			entry.Shape = "map"
		}
		if below.Kind() == reflect.Ptr {
			below = below.Elem()
		}
		custom := below.Implements(marshaler) || reflect.PointerTo(below).Implements(marshaler)
		if custom {
			entry.Codec = name(below)
		}
		if below.Kind() == reflect.Struct && !custom {
			entry.Type = name(below)
			walk(below, types)
		} else if !custom {
			entry.Shape = ""
		}
		*fields = append(*fields, entry)
	}
}

// kind names a Go kind as the service tells empty values apart: every int and uint size is "int".
func kind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Ptr:
		return "ptr"
	case reflect.Array, reflect.Slice:
		return "slice"
	default:
		return k.String()
	}
}
