package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.TenantClusterClient.IdTokenTrust;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The platform's entry in an Identity Service for GKE {@code ClientConfig}: one {@code spec.authentication[]} method
 * of its name with an {@code oidc} block naming the issuer ({@code issuerURI}), the client id the tokens carry as
 * {@code aud} ({@code clientID}), the user ({@code userClaim: sub}, {@code userPrefix: nc:}) and the groups
 * ({@code groupsClaim: groups}, no prefix). Every other method and every other field of the object are left as they
 * are: GKE writes the cluster's name, server and CA there.
 */
final class ClientConfigs {
    private ClientConfigs() {
    }

    /** The platform's {@code oidc} block for {@code trust}. */
    static Map<String, Object> oidc(IdTokenTrust trust) {
        Map<String, Object> oidc = new LinkedHashMap<>();
        oidc.put("clientID", trust.clientId());
        oidc.put("issuerURI", trust.issuer());
        oidc.put("userClaim", "sub");
        oidc.put("userPrefix", TenantClusterClient.SIGN_IN_USER_PREFIX);
        oidc.put("groupsClaim", "groups");
        return oidc;
    }

    /**
     * Sets the entry {@code name} of {@code config}'s {@code spec.authentication} to {@code trust}, adding it last when
     * there is none. True when anything changed (false: the entry read as wanted already).
     */
    @SuppressWarnings("unchecked")
    static boolean trust(GenericKubernetesResource config, String name, IdTokenTrust trust) {
        Object rawSpec = config.getAdditionalProperties().get("spec");
        Map<String, Object> spec = rawSpec instanceof Map<?, ?> m ? new LinkedHashMap<>((Map<String, Object>) m) : new LinkedHashMap<>();
        List<Object> methods = spec.get("authentication") instanceof List<?> l ? new ArrayList<>(l) : new ArrayList<>();
        Map<String, Object> wanted = new LinkedHashMap<>();
        wanted.put("name", name);
        wanted.put("oidc", oidc(trust));
        for (int i = 0; i < methods.size(); i++) {
            if (methods.get(i) instanceof Map<?, ?> method && name.equals(method.get("name"))) {
                if (wanted.equals(method)) {
                    return false;
                }
                methods.set(i, wanted);
                spec.put("authentication", methods);
                config.getAdditionalProperties().put("spec", spec);
                return true;
            }
        }
        methods.add(wanted);
        spec.put("authentication", methods);
        config.getAdditionalProperties().put("spec", spec);
        return true;
    }
}
