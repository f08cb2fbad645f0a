#!/usr/bin/env python3
"""Records the ControllerRevisions upstream's StatefulSet controller makes for cases.yaml's templates.

Each case becomes an apps/v1 StatefulSet with replicas 0 on a real control plane (no pod is made; the
controller still writes the set's revision). The output, a JSON list of {name, template, revision,
data} (the template as sent, the revision's name and its data, which is what upstream hashes), is the
table Ordinal's RevisionHashParityTest checks its hash against.

  KUBECONFIG=$(deploy/kube/control-plane.sh start DIR) \\
    python3 deploy/kube/revision-hashes/record.py \\
    > activities/src/test/resources/io/ordinal/store/upstream-revisions.json
  deploy/kube/control-plane.sh stop DIR
"""
import json
import os
import subprocess
import sys
import time

import yaml

NAMESPACE = "revision-hashes"
KUBECTL = os.environ.get("KUBECTL", "kubectl")


def kubectl(*args, stdin=None):
    done = subprocess.run([KUBECTL, *args], input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"kubectl {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def main():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.yaml")) as f:
        cases = yaml.safe_load(f)
    subprocess.run([KUBECTL, "create", "namespace", NAMESPACE], capture_output=True)
    for case in cases:
        template = case["template"]
        template.setdefault("metadata", {}).setdefault("labels", {})["case"] = case["name"]
        set_ = {
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": case["name"], "namespace": NAMESPACE},
            "spec": {"replicas": 0, "serviceName": case["name"],
                     "selector": {"matchLabels": {"case": case["name"]}}, "template": template,
                     "volumeClaimTemplates": case.get("volumeClaimTemplates", [])},
        }
        subprocess.run([KUBECTL, "delete", "statefulset", "-n", NAMESPACE, case["name"], "--ignore-not-found"],
                       capture_output=True, check=True)
        kubectl("create", "-f", "-", stdin=json.dumps(set_))
    table = []
    for case in cases:
        revision = None
        for _ in range(300):
            status = json.loads(kubectl("get", "statefulset", "-n", NAMESPACE, case["name"], "-o", "json"))["status"]
            revision = status.get("updateRevision")
            if revision:
                break
            time.sleep(0.1)
        if not revision:
            sys.exit(f"no revision for {case['name']}")
        recorded = json.loads(kubectl("get", "controllerrevision", "-n", NAMESPACE, revision, "-o", "json"))
        table.append({"name": case["name"], "template": case["template"], "revision": revision,
                      "data": recorded["data"]})
    version = json.loads(kubectl("version", "-o", "json"))["serverVersion"]["gitVersion"]
    json.dump({"recordedWith": f"kube-controller-manager {version}", "cases": table}, sys.stdout, indent=1,
              ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
