package com.bettercompute.adapters.k8s.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Identity Service for GKE puts in a cluster it is enabled on, as far as the platform meets it: the
 * {@code ClientConfig} kind ({@code authentication.gke.io/v2alpha1}, namespaced) and the {@code ClientConfig}
 * {@code default} in {@code kube-public} naming the cluster, its server and CA and no authentication yet; and the
 * reading of that object's {@code spec.authentication[].oidc} entries, the only issuers whose ID tokens the cluster
 * trusts. Nothing else tells a simulated cluster to trust an issuer.
 */
final class IdentityService {
    static final String GROUP = "authentication.gke.io";
    static final String VERSION = "v2alpha1";
    static final String CRD = "clientconfigs." + GROUP;
    static final String CLIENT_CONFIGS = "/apis/" + GROUP + "/" + VERSION + "/namespaces/kube-public/clientconfigs";
    static final String DEFAULT = CLIENT_CONFIGS + "/default";

    private IdentityService() {
    }

    /** The {@code ClientConfig} kind, as the cluster serves it once Identity Service is enabled. */
    static Map<String, Object> crd() {
        Map<String, Object> names = new LinkedHashMap<>();
        names.put("kind", "ClientConfig");
        names.put("listKind", "ClientConfigList");
        names.put("plural", "clientconfigs");
        names.put("singular", "clientconfig");
        Map<String, Object> version = new LinkedHashMap<>();
        version.put("name", VERSION);
        version.put("served", true);
        version.put("storage", true);
        version.put("schema", Map.of("openAPIV3Schema", Map.of("type", "object", "x-kubernetes-preserve-unknown-fields", true)));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("group", GROUP);
        spec.put("names", names);
        spec.put("scope", "Namespaced");
        spec.put("versions", List.of(version));
        Map<String, Object> crd = new LinkedHashMap<>();
        crd.put("apiVersion", "apiextensions.k8s.io/v1");
        crd.put("kind", "CustomResourceDefinition");
        crd.put("metadata", Map.of("name", CRD));
        crd.put("spec", spec);
        return crd;
    }

    /** The {@code default} ClientConfig as Identity Service first writes it: the cluster, its server and CA, no authentication. */
    static Map<String, Object> defaultClientConfig(String cluster, String server, String caBase64) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("name", cluster);
        spec.put("server", server);
        spec.put("certificateAuthorityData", caBase64);
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("apiVersion", GROUP + "/" + VERSION);
        config.put("kind", "ClientConfig");
        config.put("metadata", Map.of("name", "default", "namespace", "kube-public"));
        config.put("spec", spec);
        return config;
    }

    /** The {@code oidc} entries of the {@code default} ClientConfig, in order; none when there is no such object. */
    static List<OidcAuthenticator.Rules> rules(ClusterStore store) {
        Map<String, Object> config = store.get(DEFAULT);
        List<OidcAuthenticator.Rules> out = new ArrayList<>();
        if (config == null) {
            return out;
        }
        for (Object entry : Obj.list(Obj.at(config, "spec", "authentication"))) {
            Object oidc = Obj.map(entry).get("oidc");
            if (oidc instanceof Map<?, ?>) {
                out.add(OidcAuthenticator.Rules.of(Obj.map(oidc)));
            }
        }
        return out;
    }
}
