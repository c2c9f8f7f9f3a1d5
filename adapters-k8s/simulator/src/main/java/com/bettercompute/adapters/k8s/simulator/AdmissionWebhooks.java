package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.JsonPatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * kube-apiserver's dynamic admission for one request: the matching webhooks of the cluster's
 * MutatingWebhookConfigurations (by configuration name, then in order) are called and their JSONPatch
 * applied, then those of its ValidatingWebhookConfigurations, which see the mutated object. Each call
 * is an {@code AdmissionReview} {@code admission.k8s.io/v1} POSTed to {@code clientConfig.url} (with
 * {@code ?timeout=Ns} as kube-apiserver adds it) over HTTPS trusting only {@code caBundle}, host name
 * checked, with {@code timeoutSeconds} (default 10) as its deadline. A denial becomes the Status
 * kube-apiserver answers ({@code admission webhook "X" denied the request: …}, the webhook's code, at
 * least 400); a call that fails or times out refuses the request with a 500 under {@code failurePolicy:
 * Fail} (the default) and is skipped under {@code Ignore}. A webhook reached through a Service
 * ({@code clientConfig.service}) is one of an add-on the simulated cluster runs as a double: the double answers
 * it ({@link LocalServices}); a Service nothing serves fails the call as one without endpoints does.
 *
 * <p>Called with no lock held: a webhook may call back into the cluster's API.
 */
final class AdmissionWebhooks {
    static final String MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
    static final String VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
    static final int DEFAULT_TIMEOUT_SECONDS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionWebhooks.class);

    /** Who makes the request, as {@code request.userInfo} carries it. */
    record User(String username, String uid, List<String> groups) {
        User {
            groups = List.copyOf(groups);
        }

        /** A service account's user, as its token authenticates it. */
        static User serviceAccount(String namespace, String name, String uid) {
            return new User("system:serviceaccount:" + namespace + ":" + name, uid,
                    List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"));
        }

        Map<String, Object> asMap() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("username", username);
            if (uid != null) {
                out.put("uid", uid);
            }
            out.put("groups", groups);
            return out;
        }
    }

    /** A request as admission sees it: what the rules match, and the rest of the AdmissionReview's request. */
    record Attributes(WebhookRules.Request request, String kindGroup, String kindVersion, String kind, String name,
                      User user, boolean dryRun, Map<String, Object> options) {
        Attributes withObject(Map<String, Object> object) {
            return new Attributes(request.withObject(object), kindGroup, kindVersion, kind, name, user, dryRun, options);
        }
    }

    /** What admission decided. */
    sealed interface Verdict permits Admitted, Refused {
        List<String> warnings();
    }

    /** Go on with this object (the mutating webhooks' patches applied; null on a DELETE). */
    record Admitted(Map<String, Object> object, List<String> warnings) implements Verdict {}

    /** Answer the client this Status (a map, its {@code code} the HTTP status). */
    record Refused(int code, Map<String, Object> status, List<String> warnings) implements Verdict, Step {
        String message() {
            return String.valueOf(status.get("message"));
        }
    }

    /**
     * The webhook Services the simulated cluster's add-on doubles serve: for a call to {@code service} in
     * {@code namespace}, the object as the add-on's webhook leaves it (null: it adds nothing), or, when nothing
     * serves that Service, a {@link NotServed}.
     */
    @FunctionalInterface
    interface LocalServices {
        Object serve(String namespace, String service, Attributes attributes);

        LocalServices NONE = (namespace, service, attributes) -> new NotServed();
    }

    /** Nothing serves the Service (no endpoints). */
    record NotServed() {}

    private final KubernetesSerialization json;
    private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

    AdmissionWebhooks(KubernetesSerialization json) {
        this.json = json;
    }

    /** Whether any webhook of these configurations would be called for the request by its rules alone. */
    static boolean anyRule(List<Map<String, Object>> configurations, WebhookRules.Request request) {
        return configurations.stream().flatMap(c -> Obj.list(c.get("webhooks")).stream()).map(Obj::map)
                .anyMatch(w -> WebhookRules.anyRule(w, request));
    }

    /**
     * Runs the chain for one request: {@code mutating} and {@code validating} are the cluster's
     * configurations as stored; {@code namespaceLabels} gives a namespace's labels for namespace selectors.
     */
    Verdict admit(List<Map<String, Object>> mutating, List<Map<String, Object>> validating, Attributes attributes,
                  Function<String, Map<String, Object>> namespaceLabels) {
        return admit(mutating, validating, attributes, namespaceLabels, LocalServices.NONE);
    }

    /** As {@link #admit(List, List, Attributes, Function)}, with the webhook Services the cluster's add-ons serve. */
    Verdict admit(List<Map<String, Object>> mutating, List<Map<String, Object>> validating, Attributes attributes,
                  Function<String, Map<String, Object>> namespaceLabels, LocalServices local) {
        Map<String, Object> object = attributes.request().object();
        List<String> warnings = new ArrayList<>();
        for (Map<String, Object> webhook : webhooks(mutating)) {
            Attributes current = attributes.withObject(object);
            if (!WebhookRules.matches(webhook, current.request(), namespaceLabels)) {
                continue;
            }
            Step step = call(webhook, current, warnings, local);
            if (step instanceof Refused refused) {
                return refused;
            }
            if (step instanceof Replaced replaced && object != null) {
                object = replaced.object();
            }
            if (step instanceof Patched patched && object != null) {
                Map<String, Object> applied = apply(patched.patch(), object);
                if (applied == null) {
                    return internalError("admission webhook \"" + name(webhook) + "\" returned a JSONPatch that cannot be applied", warnings);
                }
                object = applied;
            }
        }
        for (Map<String, Object> webhook : webhooks(validating)) {
            Attributes current = attributes.withObject(object);
            if (WebhookRules.matches(webhook, current.request(), namespaceLabels)
                    && call(webhook, current, warnings, local) instanceof Refused refused) {
                return refused;
            }
        }
        return new Admitted(object, List.copyOf(warnings));
    }

    // ---------------------------------------------------------------- one call

    /** What one webhook said: go on, go on with this patch, or the request's refusal. */
    private sealed interface Step permits Pass, Patched, Replaced, Refused {}

    private record Pass() implements Step {}

    private record Patched(JsonNode patch) implements Step {}

    /** An add-on double's webhook answered with the object as it leaves it. */
    private record Replaced(Map<String, Object> object) implements Step {}

    private Step call(Map<String, Object> webhook, Attributes attributes, List<String> warnings, LocalServices local) {
        String name = name(webhook);
        String sideEffects = String.valueOf(webhook.get("sideEffects"));
        if (attributes.dryRun() && !"None".equals(sideEffects) && !"NoneOnDryRun".equals(sideEffects)) {
            return refused(400, "BadRequest", "admission webhook \"" + name + "\" does not support dry run", warnings);
        }
        Map<String, Object> clientConfig = Obj.map(webhook.get("clientConfig"));
        Map<String, Object> service = Obj.map(clientConfig.get("service"));
        if (clientConfig.get("url") == null && !service.isEmpty()) {
            Object served = local.serve(String.valueOf(service.get("namespace")), String.valueOf(service.get("name")), attributes);
            if (served instanceof Map<?, ?> m) {
                return new Replaced(Obj.map(m));
            }
            if (served == null) {
                return new Pass();
            }
            String target = "https://" + service.get("name") + "." + service.get("namespace") + ".svc:" + Obj.num(service, 443, "port")
                    + (service.get("path") == null ? "" : service.get("path")) + "?timeout=" + Obj.num(webhook, DEFAULT_TIMEOUT_SECONDS, "timeoutSeconds") + "s";
            String message = "failed calling webhook \"" + name + "\": failed to call webhook: Post \"" + target
                    + "\": no endpoints available for service \"" + service.get("name") + "\"";
            if ("Ignore".equals(webhook.get("failurePolicy"))) {
                LOG.warn("simulated Kubernetes API: {} (failurePolicy Ignore: the request goes on)", message);
                return new Pass();
            }
            return internalError(message, warnings);
        }
        String uid = UUID.randomUUID().toString();
        Object answer = post(webhook, review(uid, attributes));
        Map<String, Object> answered = answer instanceof Map<?, ?> ? Obj.map(answer) : null;
        String failure = answered == null ? String.valueOf(answer) : invalid(answered, uid);
        if (failure != null) {
            String message = "failed calling webhook \"" + name + "\": " + failure;
            if ("Ignore".equals(webhook.get("failurePolicy"))) {
                LOG.warn("simulated Kubernetes API: {} (failurePolicy Ignore: the request goes on)", message);
                return new Pass();
            }
            return internalError(message, warnings);
        }
        Map<String, Object> response = Obj.map(answered.get("response"));
        Obj.list(response.get("warnings")).forEach(w -> warnings.add(String.valueOf(w)));
        if (!Boolean.TRUE.equals(response.get("allowed"))) {
            return denied(name, Obj.map(response.get("status")), warnings);
        }
        Object patch = response.get("patch");
        if (patch == null) {
            return new Pass();
        }
        try {
            return new Patched(json.unmarshal(new String(Base64.getDecoder().decode(patch.toString()), StandardCharsets.UTF_8), JsonNode.class));
        } catch (RuntimeException e) {
            return internalError("admission webhook \"" + name + "\" returned a patch that is not a JSON document", warnings);
        }
    }

    /** Why the AdmissionReview answered is not one kube-apiserver accepts, or null when it is. */
    private static String invalid(Map<String, Object> review, String uid) {
        String prefix = "received invalid webhook response: ";
        if (!"admission.k8s.io/v1".equals(review.get("apiVersion")) || !"AdmissionReview".equals(review.get("kind"))) {
            return prefix + "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got "
                    + review.get("apiVersion") + ", Kind=" + review.get("kind");
        }
        Map<String, Object> response = Obj.map(review.get("response"));
        if (response.isEmpty()) {
            return prefix + "webhook response was absent";
        }
        if (!uid.equals(response.get("uid"))) {
            return prefix + "expected response.uid=\"" + uid + "\", got \"" + response.get("uid") + "\"";
        }
        if (response.get("patch") != null && !"JSONPatch".equals(response.get("patchType"))) {
            return prefix + "expected patchType JSONPatch, got \"" + response.get("patchType") + "\"";
        }
        return null;
    }

    private Map<String, Object> review(String uid, Attributes a) {
        WebhookRules.Request r = a.request();
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("uid", uid);
        Map<String, Object> kind = Map.of("group", a.kindGroup(), "version", a.kindVersion(), "kind", a.kind());
        Map<String, Object> resource = Map.of("group", r.group(), "version", r.version(), "resource", r.resource());
        request.put("kind", kind);
        request.put("resource", resource);
        boolean sub = r.subResource() != null && !r.subResource().isEmpty();
        if (sub) {
            request.put("subResource", r.subResource());
        }
        request.put("requestKind", kind);
        request.put("requestResource", resource);
        if (sub) {
            request.put("requestSubResource", r.subResource());
        }
        if (a.name() != null && !a.name().isEmpty()) {
            request.put("name", a.name());
        }
        if (r.namespace() != null && !r.namespace().isEmpty()) {
            request.put("namespace", r.namespace());
        }
        request.put("operation", r.operation());
        request.put("userInfo", a.user().asMap());
        request.put("object", r.object());
        request.put("oldObject", r.oldObject());
        request.put("dryRun", a.dryRun());
        request.put("options", a.options());
        Map<String, Object> review = new LinkedHashMap<>();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        review.put("request", request);
        return review;
    }

    /** POSTs the review; the AdmissionReview answered (a map), or why the call failed (a string). */
    private Object post(Map<String, Object> webhook, Map<String, Object> review) {
        Map<String, Object> clientConfig = Obj.map(webhook.get("clientConfig"));
        Object url = clientConfig.get("url");
        if (url == null) {
            return "failed to call webhook: the simulated cluster runs no Services; only clientConfig.url can be called";
        }
        long timeout = Obj.num(webhook, DEFAULT_TIMEOUT_SECONDS, "timeoutSeconds");
        String target = url + (url.toString().contains("?") ? "&" : "?") + "timeout=" + timeout + "s";
        String call = "failed to call webhook: Post \"" + target + "\": ";
        HttpClient client;
        HttpRequest request;
        try {
            String caBundle = clientConfig.get("caBundle") == null ? "" : clientConfig.get("caBundle").toString();
            client = clients.computeIfAbsent(caBundle, AdmissionWebhooks::client);
            request = HttpRequest.newBuilder(URI.create(target)).timeout(Duration.ofSeconds(timeout))
                    .header("Content-Type", "application/json").header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json.asJson(review))).build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            return call + e.getMessage();
        }
        CompletableFuture<HttpResponse<String>> sent = client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> response;
        try {
            response = sent.get(timeout, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            sent.cancel(true);
            return call + "context deadline exceeded";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return call + "interrupted";
        } catch (ExecutionException e) {
            URI uri = request.uri();
            return call + transport(e.getCause(), uri.getHost() + ":" + (uri.getPort() < 0 ? 443 : uri.getPort()));
        }
        if (response.statusCode() != 200) {
            return "failed to call webhook: the server responded with the status code " + response.statusCode() + " but did not return an AdmissionReview";
        }
        try {
            return json.unmarshal(response.body(), Map.class);
        } catch (RuntimeException e) {
            return "received invalid webhook response: the body is not a JSON AdmissionReview";
        }
    }

    /** A transport failure in the words Go's HTTP client uses for the same thing, which kube-apiserver prints. */
    private static String transport(Throwable cause, String hostPort) {
        if (cause instanceof HttpTimeoutException) {
            return "context deadline exceeded";
        }
        if (cause instanceof ConnectException) {
            return "dial tcp " + hostPort + ": connect: connection refused";
        }
        if (cause instanceof SSLException) {
            return "tls: failed to verify certificate: " + cause.getMessage();
        }
        return cause == null ? "unknown error" : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    /** A client trusting only the caBundle's certificates (the JDK's roots when there is none). */
    private static HttpClient client(String caBundle) {
        try {
            SSLContext ssl;
            if (caBundle.isEmpty()) {
                ssl = SSLContext.getDefault();
            } else {
                Collection<? extends Certificate> certificates = java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificates(new ByteArrayInputStream(Base64.getDecoder().decode(caBundle)));
                if (certificates.isEmpty()) {
                    throw new IllegalArgumentException("caBundle holds no certificate");
                }
                KeyStore trusted = KeyStore.getInstance("PKCS12");
                trusted.load(null, null);
                int i = 0;
                for (Certificate certificate : certificates) {
                    trusted.setCertificateEntry("ca-" + i++, certificate);
                }
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(trusted);
                ssl = SSLContext.getInstance("TLS");
                ssl.init(null, trust.getTrustManagers(), null);
            }
            return HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalArgumentException("caBundle cannot be read: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- answers

    /** kube-apiserver's refusal for a denial: the webhook's status, its code at least 400, its message prefixed. */
    private static Refused denied(String webhook, Map<String, Object> given, List<String> warnings) {
        Map<String, Object> status = new LinkedHashMap<>(given);
        String deniedBy = "admission webhook \"" + webhook + "\" denied the request";
        Object message = status.get("message");
        Object reason = status.get("reason");
        if (message != null && !message.toString().isEmpty()) {
            status.put("message", deniedBy + ": " + message);
        } else if (reason != null && !reason.toString().isEmpty()) {
            status.put("message", deniedBy + ": " + reason);
        } else {
            status.put("message", deniedBy + " without explanation");
        }
        int code = (int) Obj.num(status, 0, "code");
        if (code < 400) {
            code = 400;
        }
        status.put("code", code);
        if (status.get("status") == null || "".equals(status.get("status")) || "Success".equals(status.get("status"))) {
            status.put("status", "Failure");
        }
        return new Refused(code, KubeStatus.of(status), List.copyOf(warnings));
    }

    private static Refused internalError(String message, List<String> warnings) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("status", "Failure");
        status.put("message", "Internal error occurred: " + message);
        status.put("reason", "InternalError");
        status.put("details", Map.of("causes", List.of(Map.of("message", message))));
        status.put("code", 500);
        return new Refused(500, KubeStatus.of(status), List.copyOf(warnings));
    }

    private static Refused refused(int code, String reason, String message, List<String> warnings) {
        return new Refused(code, KubeStatus.failure(code, reason, message), List.copyOf(warnings));
    }

    // ---------------------------------------------------------------- helpers

    /** The webhooks of these configurations in the order kube-apiserver calls them: by configuration name, then as listed. */
    private static List<Map<String, Object>> webhooks(List<Map<String, Object>> configurations) {
        return configurations.stream().sorted(Comparator.comparing(c -> String.valueOf(Obj.name(c))))
                .flatMap(c -> Obj.list(c.get("webhooks")).stream()).map(Obj::map).toList();
    }

    private static String name(Map<String, Object> webhook) {
        return String.valueOf(webhook.get("name"));
    }

    /** The object with the JSON Patch applied, or null when the patch does not apply. */
    private Map<String, Object> apply(JsonNode patch, Map<String, Object> object) {
        try {
            JsonNode patched = JsonPatch.apply(patch, json.convertValue(object, JsonNode.class));
            @SuppressWarnings("unchecked")
            Map<String, Object> out = json.convertValue(patched, Map.class);
            return out;
        } catch (RuntimeException e) {
            LOG.warn("simulated Kubernetes API: a webhook's JSON Patch does not apply: {}", e.getMessage());
            return null;
        }
    }
}
