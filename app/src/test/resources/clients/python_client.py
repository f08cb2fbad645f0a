"""The official Python client (PyPI kubernetes) against Ordinal: every served kind created, read,
listed, watched, patched and deleted through its typed API, whose models refuse a response that
lacks what upstream's types always carry. Prints one line per step; any exception fails the run.

usage: python_client.py HOST TOKEN CA_FILE NAMESPACE
"""
import sys

from kubernetes import client, watch

host, token, ca, ns = sys.argv[1:5]
configuration = client.Configuration()
configuration.host = host
configuration.api_key = {"authorization": "Bearer " + token}
configuration.ssl_ca_cert = ca
api = client.ApiClient(configuration)
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
rbac = client.RbacAuthorizationV1Api(api)


def step(name):
    print("ok " + name, flush=True)


meta = lambda name: client.V1ObjectMeta(name=name, labels={"client": "python"})

# ConfigMaps, Secrets, ServiceAccounts, Services: the whole life of each.
kinds = [
    ("configmap", client.V1ConfigMap(metadata=meta("py-cm"), data={"k": "v"}),
     core.create_namespaced_config_map, core.read_namespaced_config_map, core.list_namespaced_config_map,
     core.patch_namespaced_config_map, core.delete_namespaced_config_map),
    ("secret", client.V1Secret(metadata=meta("py-secret"), string_data={"password": "s3cr3t"}),
     core.create_namespaced_secret, core.read_namespaced_secret, core.list_namespaced_secret,
     core.patch_namespaced_secret, core.delete_namespaced_secret),
    ("serviceaccount", client.V1ServiceAccount(metadata=meta("py-sa")),
     core.create_namespaced_service_account, core.read_namespaced_service_account,
     core.list_namespaced_service_account, core.patch_namespaced_service_account,
     core.delete_namespaced_service_account),
    ("service", client.V1Service(metadata=meta("py-svc"), spec=client.V1ServiceSpec(
        cluster_ip="None", selector={"app": "py-web"}, ports=[client.V1ServicePort(name="web", port=80)])),
     core.create_namespaced_service, core.read_namespaced_service, core.list_namespaced_service,
     core.patch_namespaced_service, core.delete_namespaced_service),
]
for kind, body, create, read, list_, patch, delete in kinds:
    name = body.metadata.name
    created = create(ns, body).metadata.resource_version
    step("create " + kind)
    read(name, ns)
    step("get " + kind)
    items = list_(ns, label_selector="client=python").items
    assert [i.metadata.name for i in items] == [name], items
    step("list " + kind)
    patch(name, ns, {"metadata": {"labels": {"patched": "yes"}}})
    assert read(name, ns).metadata.labels["patched"] == "yes"
    step("patch " + kind)
    for event in watch.Watch().stream(list_, ns, resource_version=created, timeout_seconds=10):
        assert event["type"] == "MODIFIED", event
        assert event["object"].metadata.labels["patched"] == "yes", event
        break
    else:
        raise AssertionError("the watch from the create's resourceVersion never saw the patch of " + kind)
    step("watch " + kind)
    delete(name, ns)
    step("delete " + kind)

# A StatefulSet: create, status, scale, its pods and claims, a watch, delete.
container = client.V1Container(name="nginx", image="registry.k8s.io/nginx-slim:0.24",
                               ports=[client.V1ContainerPort(container_port=80, name="web")])
template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={"app": "py-web"}),
                                    spec=client.V1PodSpec(containers=[container]))
claim = client.V1PersistentVolumeClaim(metadata=client.V1ObjectMeta(name="www"), spec=client.V1PersistentVolumeClaimSpec(
    access_modes=["ReadWriteOnce"], resources=client.V1VolumeResourceRequirements(requests={"storage": "1Gi"})))
set_ = client.V1StatefulSet(
    metadata=client.V1ObjectMeta(name="py-web", annotations={"ordinal.io/driver": "sim"}),
    spec=client.V1StatefulSetSpec(service_name="py-svc", replicas=1, selector=client.V1LabelSelector(
        match_labels={"app": "py-web"}), template=template, volume_claim_templates=[claim]))
created = apps.create_namespaced_stateful_set(ns, set_)
assert created.status.replicas == 0, created.status
step("create statefulset")
events = watch.Watch().stream(apps.list_namespaced_stateful_set, ns, timeout_seconds=90)
for event in events:
    if event["object"].metadata.name == "py-web" and (event["object"].status.ready_replicas or 0) >= 1:
        break
else:
    raise AssertionError("the watch never saw py-web Ready")
step("watch statefulset")
apps.read_namespaced_stateful_set_status("py-web", ns)
step("get statefulset status")
apps.patch_namespaced_stateful_set_scale("py-web", ns, {"spec": {"replicas": 2}})
assert apps.read_namespaced_stateful_set_scale("py-web", ns).spec.replicas == 2
step("scale statefulset")
pods = core.list_namespaced_pod(ns, label_selector="app=py-web").items
assert pods, "no pods"
step("list pods")
core.list_namespaced_persistent_volume_claim(ns)
step("list persistentvolumeclaims")
apps.list_namespaced_controller_revision(ns)
step("list controllerrevisions")
core.list_namespaced_event(ns)
step("list events")
core.read_namespace(ns)
core.list_namespace()
step("namespaces")
client.DiscoveryV1Api(api).list_namespaced_endpoint_slice(ns)
step("list endpointslices")
rbac.create_namespaced_role(ns, client.V1Role(metadata=meta("py-role"), rules=[client.V1PolicyRule(
    api_groups=[""], resources=["pods"], verbs=["get"])]))
rbac.list_namespaced_role(ns)
rbac.delete_namespaced_role("py-role", ns)
step("roles")
apps.delete_namespaced_stateful_set("py-web", ns)
step("delete statefulset")
