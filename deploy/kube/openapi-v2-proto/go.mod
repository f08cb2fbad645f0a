module ordinal.io/openapi-v2-proto

go 1.24.0

require (
	github.com/google/gnostic-models v0.7.1
	github.com/google/go-cmp v0.7.0
	go.yaml.in/yaml/v3 v3.0.4
	google.golang.org/protobuf v1.36.6
)
