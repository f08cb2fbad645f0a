"""The official Python client (PyPI kubernetes) against Ordinal: every served kind created, read,
listed, watched, patched and deleted through its typed API, whose models refuse a response that
lacks what upstream's types always carry; the kinds Ordinal writes for a set (pods, claims,
revisions, events, EndpointSlices) listed, watched and read; a namespace's whole life. Prints one
line per step; any exception fails the run.

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
discovery = client.DiscoveryV1Api(api)


def step(name):
    print("ok " + name, flush=True)


def watch_for(list_, since, wanted, *args, types=("ADDED", "MODIFIED")):
    """The object of the first event of one of types for which wanted holds, on a watch from since:
    each event on the way is decoded by the client's model, so one it refuses fails the run."""
    stream = watch.Watch()
    for event in stream.stream(list_, *args, resource_version=since, timeout_seconds=90):
        if event["type"] in types and wanted(event["object"]):
            stream.stop()
            return event["object"]
    raise AssertionError("no %s event wanted on the watch of %s from %s" % ("/".join(types), list_.__name__, since))


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
# What Ordinal writes for the set, listed before it exists: a watch from each list's resourceVersion
# must then bring the set's own objects, each decoded by the client's model.
written = {
    "pods": core.list_namespaced_pod,
    "persistentvolumeclaims": core.list_namespaced_persistent_volume_claim,
    "controllerrevisions": apps.list_namespaced_controller_revision,
    "events": core.list_namespaced_event,
    "endpointslices": discovery.list_namespaced_endpoint_slice,
}
since = {kind: list_(ns).metadata.resource_version for kind, list_ in written.items()}
step("list pods, claims, revisions, events, endpointslices before the set")
# The set's Service (py-svc went above): its EndpointSlice is Ordinal's to write.
core.create_namespaced_service(ns, client.V1Service(metadata=client.V1ObjectMeta(name="py-web"), spec=client.V1ServiceSpec(
    cluster_ip="None", selector={"app": "py-web"}, ports=[client.V1ServicePort(name="web", port=80)])))
step("create service py-web")
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

controlled_by_set = lambda o: any(r.kind == "StatefulSet" and r.name == "py-web" and r.controller
                                  for r in o.metadata.owner_references or [])
# The pod the scale made, owned by the set.
pod = watch_for(core.list_namespaced_pod, since["pods"], lambda p: p.metadata.name == "py-web-1", ns)
assert controlled_by_set(pod), pod.metadata
step("watch pods")
assert controlled_by_set(core.read_namespaced_pod("py-web-1", ns))
pods = core.list_namespaced_pod(ns, label_selector="app=py-web").items
assert sorted(p.metadata.name for p in pods) == ["py-web-0", "py-web-1"], [p.metadata.name for p in pods]
step("get and list pods")
# A claim is named <template>-<set>-<ordinal>.
claim = watch_for(core.list_namespaced_persistent_volume_claim, since["persistentvolumeclaims"],
                  lambda c: c.metadata.name == "www-py-web-0", ns)
assert claim.spec.resources.requests["storage"] == "1Gi", claim.spec
step("watch persistentvolumeclaims")
core.read_namespaced_persistent_volume_claim("www-py-web-0", ns)
claims = [c.metadata.name for c in core.list_namespaced_persistent_volume_claim(ns).items]
assert {"www-py-web-0", "www-py-web-1"} <= set(claims), claims
step("get and list persistentvolumeclaims")
revision = watch_for(apps.list_namespaced_controller_revision, since["controllerrevisions"],
                     lambda r: r.metadata.name.startswith("py-web-"), ns)
assert controlled_by_set(revision) and revision.revision >= 1, revision.metadata
step("watch controllerrevisions")
apps.read_namespaced_controller_revision(revision.metadata.name, ns)
assert revision.metadata.name in [r.metadata.name for r in apps.list_namespaced_controller_revision(ns).items]
step("get and list controllerrevisions")
event = watch_for(core.list_namespaced_event, since["events"],
                  lambda e: e.involved_object.kind == "StatefulSet" and e.involved_object.name == "py-web", ns)
assert event.involved_object.namespace == ns and event.reason, event
step("watch events")
core.read_namespaced_event(event.metadata.name, ns)
assert event.metadata.name in [e.metadata.name for e in core.list_namespaced_event(ns).items]
step("get and list events")
slice_ = watch_for(discovery.list_namespaced_endpoint_slice, since["endpointslices"],
                   lambda e: (e.metadata.labels or {}).get("kubernetes.io/service-name") == "py-web", ns)
assert slice_.address_type, slice_
step("watch endpointslices")
discovery.read_namespaced_endpoint_slice(slice_.metadata.name, ns)
slices = discovery.list_namespaced_endpoint_slice(ns, label_selector="kubernetes.io/service-name=py-web").items
assert [e.metadata.name for e in slices] == [slice_.metadata.name], slices
step("get and list endpointslices")
rbac.create_namespaced_role(ns, client.V1Role(metadata=meta("py-role"), rules=[client.V1PolicyRule(
    api_groups=[""], resources=["pods"], verbs=["get"])]))
rbac.list_namespaced_role(ns)
rbac.delete_namespaced_role("py-role", ns)
step("roles")
apps.delete_namespaced_stateful_set("py-web", ns)
step("delete statefulset")
core.delete_namespaced_service("py-web", ns)
step("delete service py-web")

# A namespace's whole life: listed first, so that the watch from that list sees it added.
made = ns + "-made"
since = core.list_namespace().metadata.resource_version
core.create_namespace(client.V1Namespace(metadata=meta(made)))
step("create namespace")
assert core.read_namespace(made).status.phase == "Active"
core.read_namespace(ns)  # one no one created: Ordinal's namespaces are implicit too
step("get namespace")
assert made in [n.metadata.name for n in core.list_namespace(label_selector="client=python").items]
step("list namespace")
watch_for(core.list_namespace, since, lambda n: n.metadata.name == made, types=("ADDED",))
step("watch namespace")
patched = core.patch_namespace(made, {"metadata": {"labels": {"patched": "yes"}}}).metadata.resource_version
assert core.read_namespace(made).metadata.labels["patched"] == "yes"
step("patch namespace")
core.delete_namespace(made)
# Gone once its content is (it has none): the watch from the patch sees it deleted, and it is no longer listed.
watch_for(core.list_namespace, patched, lambda n: n.metadata.name == made, types=("DELETED",))
assert made not in [n.metadata.name for n in core.list_namespace(label_selector="client=python").items]
step("delete namespace")
