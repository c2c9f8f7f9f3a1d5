package com.bettercompute.adapters.http;

import com.bettercompute.application.admission.Mutations;
import com.bettercompute.application.admission.MutateWorkload;
import com.bettercompute.application.admission.PlatformObjectChange;
import com.bettercompute.application.admission.Verdict;
import com.bettercompute.application.admission.Workload;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.domain.input.Input;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes' {@code admission.k8s.io/v1} AdmissionReview, read into the admission use cases' typed input and
 * answered: {@code response.uid}, {@code allowed}, {@code status{code,message,reason}} and, from the mutating
 * webhook, a base64 JSONPatch. A body that is not a review is {@code INVALID_INPUT} naming the field (a 400).
 */
final class AdmissionReviews {
    static final String API_VERSION = "admission.k8s.io/v1";
    static final String KUEUE_GROUP = "kueue.x-k8s.io";
    private static final String GPU = "nvidia.com/gpu";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** What a pod tolerates to run on a market GPU node: {@code nationalcompute.com/gpu-worker=true:NoSchedule}. */
    private static final ObjectNode TOLERATION = NODES.objectNode()
            .put("key", MutateWorkload.GPU_WORKER_TAINT).put("operator", "Equal").put("value", "true").put("effect", "NoSchedule");

    private AdmissionReviews() {}

    /** One review's request, as far as the rules need it. */
    record Review(String uid, String group, String resource, String subResource, Workload.Operation operation,
                  String namespace, String name, String username, JsonNode object, JsonNode oldObject) {
        /** What the review is about: a workload, one of the cluster's Kueue objects, or something else (null). */
        Subject subject() {
            if (subResource != null && !subResource.isEmpty()) {
                return null;
            }
            if (KUEUE_GROUP.equals(group)) {
                return Subject.KUEUE;
            }
            return switch (group + "/" + resource) {
                case "batch/jobs", "jobset.x-k8s.io/jobsets", "kubeflow.org/mpijobs", "/pods", "apps/deployments",
                     "apps/statefulsets", "apps/replicasets" -> Subject.WORKLOAD;
                case "/services" -> Subject.SERVICE;
                default -> null;
            };
        }
    }

    enum Subject { WORKLOAD, KUEUE, SERVICE }

    static Review read(byte[] body) {
        JsonNode root;
        try {
            root = body.length == 0 ? null : Json.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw Input.invalid("", "the body is not well-formed JSON (an admission.k8s.io/v1 AdmissionReview)");
        } catch (IOException e) {
            throw Input.invalid("", "the body could not be read");
        }
        if (root == null || !root.isObject()) {
            throw Input.invalid("", "the body must be an admission.k8s.io/v1 AdmissionReview object");
        }
        if (!API_VERSION.equals(root.path("apiVersion").asText(null)) || !"AdmissionReview".equals(root.path("kind").asText(null))) {
            throw Input.invalid("apiVersion", "must be admission.k8s.io/v1 with kind AdmissionReview");
        }
        JsonNode request = root.get("request");
        if (request == null || !request.isObject()) {
            throw Input.invalid("request", "is required: the review's request object");
        }
        String uid = text(request, "uid", "request.uid", true);
        JsonNode resource = request.get("resource");
        if (resource == null || !resource.isObject()) {
            throw Input.invalid("request.resource", "is required: the group, version and resource reviewed");
        }
        String op = text(request, "operation", "request.operation", true);
        Workload.Operation operation;
        try {
            operation = Workload.Operation.valueOf(op);
        } catch (IllegalArgumentException e) {
            throw Input.invalid("request.operation", "must be CREATE, UPDATE, DELETE or CONNECT");
        }
        JsonNode object = objectOrNull(request, "object");
        JsonNode oldObject = objectOrNull(request, "oldObject");
        if (object == null && operation == Workload.Operation.CREATE) {
            throw Input.invalid("request.object", "is required for a CREATE");
        }
        return new Review(uid, text(resource, "group", "request.resource.group", false),
                text(resource, "resource", "request.resource.resource", true),
                text(request, "subResource", "request.subResource", false), operation,
                text(request, "namespace", "request.namespace", false), text(request, "name", "request.name", false),
                request.path("userInfo").path("username").asText(""), object, oldObject);
    }

    private static String text(JsonNode node, String name, String field, boolean required) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            if (required) {
                throw Input.invalid(field, "is required");
            }
            return name.equals("group") ? "" : null;
        }
        if (!v.isTextual()) {
            throw Input.invalid(field, "must be a string");
        }
        return v.asText();
    }

    private static JsonNode objectOrNull(JsonNode request, String name) {
        JsonNode v = request.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isObject()) {
            throw Input.invalid("request." + name, "must be an object");
        }
        return v;
    }

    /** The workload of a review whose {@link Review#subject()} is a workload. */
    static Workload workload(Review review) {
        JsonNode object = review.object() != null ? review.object() : review.oldObject();
        Map<String, String> labels = labels(object);
        String name = review.name() != null ? review.name() : object.path("metadata").path("name").asText("");
        if (name.isEmpty()) {
            name = object.path("metadata").path("generateName").asText("");
        }
        JsonNode spec = object.path("spec");
        List<Workload.PodTemplate> templates = new ArrayList<>();
        Workload.Kind kind;
        boolean suspended;
        switch (review.resource()) {
            case "jobs" -> {
                kind = Workload.Kind.JOB;
                templates.add(template("template", "/spec/template/spec", spec.path("template"), jobPods(spec, "spec")));
                suspended = spec.path("suspend").asBoolean(false);
            }
            case "jobsets" -> {
                kind = Workload.Kind.JOBSET;
                JsonNode replicated = spec.path("replicatedJobs");
                for (int i = 0; i < replicated.size(); i++) {
                    JsonNode rj = replicated.get(i);
                    String field = "spec.replicatedJobs[" + i + "]";
                    JsonNode jobSpec = rj.path("template").path("spec");
                    int pods = Math.multiplyExact(count(rj, "replicas", field), jobPods(jobSpec, field + ".template.spec"));
                    templates.add(template(rj.path("name").asText("#" + i),
                            "/spec/replicatedJobs/" + i + "/template/spec/template/spec", jobSpec.path("template"), pods));
                }
                suspended = spec.path("suspend").asBoolean(false);
            }
            case "mpijobs" -> {
                kind = Workload.Kind.MPIJOB;
                JsonNode replicas = spec.path("mpiReplicaSpecs");
                for (Iterator<Map.Entry<String, JsonNode>> it = replicas.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    String field = "spec.mpiReplicaSpecs." + e.getKey();
                    templates.add(template(e.getKey(), "/spec/mpiReplicaSpecs/" + pointer(e.getKey()) + "/template/spec",
                            e.getValue().path("template"), count(e.getValue(), "replicas", field)));
                }
                suspended = spec.path("runPolicy").path("suspend").asBoolean(false);
            }
            case "deployments", "statefulsets", "replicasets" -> {
                kind = switch (review.resource()) {
                    case "deployments" -> Workload.Kind.DEPLOYMENT;
                    case "statefulsets" -> Workload.Kind.STATEFULSET;
                    default -> Workload.Kind.REPLICASET;
                };
                templates.add(template("template", "/spec/template/spec", spec.path("template"), count(spec, "replicas", "spec")));
                suspended = false;
            }
            default -> {
                kind = Workload.Kind.POD;
                templates.add(template(name, "/spec", object, 1));
                suspended = false;
            }
        }
        boolean controlled = false;
        for (JsonNode owner : object.path("metadata").path("ownerReferences")) {
            controlled |= owner.path("controller").asBoolean(false);
        }
        return new Workload(kind, review.operation(), review.namespace(), name, labels, controlled, suspended, templates);
    }

    /** The pods a Job makes at once: its parallelism (1 when unset), no more than its completions. */
    private static int jobPods(JsonNode jobSpec, String field) {
        int parallelism = count(jobSpec, "parallelism", field);
        JsonNode completions = jobSpec.get("completions");
        return completions == null || completions.isNull() ? parallelism
                : Math.min(parallelism, count(jobSpec, "completions", field));
    }

    private static int count(JsonNode node, String name, String field) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return 1;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 0) {
            throw Input.invalid(field + "." + name, "must be a whole number, not negative");
        }
        return v.asInt();
    }

    /** A pod template ({@code podTemplate} holds {@code spec}) found at {@code location}, the pointer of its pod spec. */
    private static Workload.PodTemplate template(String name, String location, JsonNode podTemplate, int count) {
        JsonNode podSpec = podTemplate.path("spec");
        long gpus = 0;
        for (JsonNode c : podSpec.path("containers")) {
            gpus = Math.addExact(gpus, gpus(c));
        }
        long init = 0;
        for (JsonNode c : podSpec.path("initContainers")) {
            init = Math.max(init, gpus(c));
        }
        String nodeClass = podSpec.path("nodeSelector").path(MarketClusterClient.NODE_CLASS_LABEL).asText(null);
        boolean tolerates = false;
        for (JsonNode t : podSpec.path("tolerations")) {
            String key = t.path("key").asText("");
            tolerates |= key.equals(MutateWorkload.GPU_WORKER_TAINT) || (key.isEmpty() && "Exists".equals(t.path("operator").asText()));
        }
        return new Workload.PodTemplate(name, location, count, Math.max(gpus, init), nodeClass, tolerates);
    }

    /** A container's {@code nvidia.com/gpu}: its limit, else its request; a GPU count is a whole number. */
    private static long gpus(JsonNode container) {
        JsonNode resources = container.path("resources");
        JsonNode v = resources.path("limits").get(GPU);
        if (v == null || v.isNull()) {
            v = resources.path("requests").get(GPU);
        }
        if (v == null || v.isNull()) {
            return 0;
        }
        try {
            BigDecimal n = new BigDecimal(v.asText().trim());
            if (n.signum() < 0 || n.stripTrailingZeros().scale() > 0) {
                throw new NumberFormatException();
            }
            return n.longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw Input.invalid("resources." + GPU, "must be a whole number of GPUs, not \"" + v.asText() + "\"");
        }
    }

    private static Map<String, String> labels(JsonNode object) {
        Map<String, String> labels = new HashMap<>();
        object.path("metadata").path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }

    /** The change to one of the cluster's Kueue objects a review shows. */
    static PlatformObjectChange platformObjectChange(Review review) {
        JsonNode old = review.oldObject();
        boolean owned = old != null && "platform".equals(old.path("metadata").path("labels").path(MarketClusterClient.OWNED_BY).asText(null));
        boolean changed = false;
        if (review.operation() == Workload.Operation.UPDATE && old != null && review.object() != null) {
            changed = !declaration(old).equals(declaration(review.object()))
                    || !old.path("metadata").path("labels").equals(review.object().path("metadata").path("labels"));
        }
        String kind = (old != null ? old : review.object()).path("kind").asText(review.resource());
        String name = review.name() != null ? review.name() : (old != null ? old : review.object()).path("metadata").path("name").asText("");
        return new PlatformObjectChange(kind, name, review.operation(), owned, changed, review.username());
    }

    /** An object without its metadata and status: what the platform declares. */
    private static JsonNode declaration(JsonNode object) {
        ObjectNode copy = ((ObjectNode) object).deepCopy();
        copy.remove("metadata");
        copy.remove("status");
        return copy;
    }

    /** The answer to a review. */
    static byte[] answer(String uid, Verdict verdict, byte[] patch) {
        ObjectNode response = NODES.objectNode().put("uid", uid).put("allowed", verdict.allowed());
        if (!verdict.allowed()) {
            response.putObject("status").put("code", verdict.code()).put("reason", verdict.reason()).put("message", verdict.message());
        }
        if (patch != null) {
            response.put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(patch));
        }
        ObjectNode review = NODES.objectNode().put("apiVersion", API_VERSION).put("kind", "AdmissionReview");
        review.set("response", response);
        return Json.write(review);
    }

    /** The JSONPatch that makes {@code object} carry {@code mutations}; null when there is nothing to add. */
    static byte[] patch(Workload.Kind kind, JsonNode object, Mutations mutations) {
        if (mutations.none()) {
            return null;
        }
        ArrayNode ops = NODES.arrayNode();
        for (String location : mutations.tolerateAt()) {
            JsonNode tolerations = object.at(location).get("tolerations");
            if (tolerations == null || !tolerations.isArray()) {
                add(ops, location + "/tolerations", NODES.arrayNode().add(TOLERATION));
            } else {
                add(ops, location + "/tolerations/-", TOLERATION);
            }
        }
        if (mutations.queueLabel()) {
            queueLabel(ops, object, "/metadata");
            if (kind.replicated()) {
                // each replica is its own queued pod: the label goes where the pods take their labels from
                if (!object.path("spec").path("template").path("metadata").isObject()) {
                    add(ops, "/spec/template/metadata", NODES.objectNode());
                }
                queueLabel(ops, object.path("spec").path("template"), "/spec/template/metadata");
            }
        }
        if (mutations.suspend()) {
            if (kind == Workload.Kind.MPIJOB) {
                JsonNode runPolicy = object.path("spec").get("runPolicy");
                if (runPolicy == null || !runPolicy.isObject()) {
                    add(ops, "/spec/runPolicy", NODES.objectNode().put("suspend", true));
                } else {
                    add(ops, "/spec/runPolicy/suspend", NODES.booleanNode(true));
                }
            } else {
                add(ops, "/spec/suspend", NODES.booleanNode(true));
            }
        }
        return Json.write(ops);
    }

    private static void queueLabel(ArrayNode ops, JsonNode object, String metadata) {
        JsonNode labels = object.path("metadata").get("labels");
        if (labels == null || !labels.isObject()) {
            add(ops, metadata + "/labels", NODES.objectNode().put(MutateWorkload.QUEUE_LABEL, MutateWorkload.LOCAL_QUEUE));
        } else if (!labels.has(MutateWorkload.QUEUE_LABEL)) {
            add(ops, metadata + "/labels/" + pointer(MutateWorkload.QUEUE_LABEL), NODES.textNode(MutateWorkload.LOCAL_QUEUE));
        }
    }

    private static void add(ArrayNode ops, String path, JsonNode value) {
        ops.addObject().put("op", "add").put("path", path).set("value", value);
    }

    /**
     * The JSONPatch that gives a Service the platform's load balancer class when it becomes a class-less LoadBalancer
     * ({@link LoadBalancerClass#claims}); null when it is left as it is.
     */
    static byte[] serviceClass(Review review) {
        JsonNode object = review.object();
        if (object == null || review.operation() == Workload.Operation.DELETE) {
            return null;
        }
        JsonNode oldObject = review.operation() == Workload.Operation.CREATE ? null : review.oldObject();
        String oldType = oldObject == null ? null : oldObject.path("spec").path("type").asText("ClusterIP");
        JsonNode spec = object.path("spec");
        String cls = spec.path("loadBalancerClass").isTextual() ? spec.path("loadBalancerClass").asText() : null;
        if (!LoadBalancerClass.claims(oldType, spec.path("type").asText("ClusterIP"), cls)) {
            return null;
        }
        ArrayNode ops = NODES.arrayNode();
        add(ops, "/spec/loadBalancerClass", NODES.textNode(LoadBalancerClass.PLATFORM));
        return Json.write(ops);
    }

    /** A JSON pointer's escaping of one key (RFC 6901). */
    static String pointer(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
