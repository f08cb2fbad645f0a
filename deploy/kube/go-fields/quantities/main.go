// Command quantities writes, for each JSON value on standard input (one per line), what upstream's
// resource.Quantity writes back after reading it, and after SetDefaults_ResourceList's RoundUp to
// milli, tab separated: the table GoQuantityTest checks Ordinal's rendering against. Regenerate with:
//
//	cd deploy/kube/go-fields && cut -f1 ../../../activities/src/test/resources/io/ordinal/kube/go-quantities.tsv \
//	  | go run ./quantities > /tmp/q.tsv && mv /tmp/q.tsv ../../../activities/src/test/resources/io/ordinal/kube/go-quantities.tsv
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
)

func main() {
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		in := lines.Text()
		var q resource.Quantity
		if err := json.Unmarshal([]byte(in), &q); err != nil {
			fmt.Printf("%s\tinvalid\tinvalid\n", in)
			continue
		}
		written, _ := json.Marshal(q)
		rounded := q.DeepCopy()
		rounded.RoundUp(resource.Milli)
		roundedWritten, _ := json.Marshal(rounded)
		fmt.Printf("%s\t%s\t%s\n", in, written, roundedWritten)
	}
}
