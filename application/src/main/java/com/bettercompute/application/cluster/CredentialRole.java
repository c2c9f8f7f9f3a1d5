package com.bettercompute.application.cluster;

import com.bettercompute.domain.access.Action;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The roles a kubeconfig can carry; the wire form is the lower-case name. */
public enum CredentialRole {
    /** Read most objects: Kubernetes' built-in {@code view}. */
    VIEW("view", Action.CONNECT),
    /** Read and write most namespaced objects: Kubernetes' built-in {@code edit}; needs update on the cluster. */
    EDIT("edit", Action.UPDATE),
    /** Everything: Kubernetes' built-in {@code cluster-admin}; needs delete on the cluster. */
    ADMIN("cluster-admin", Action.DELETE);

    public static final Map<String, CredentialRole> BY_WIRE;

    static {
        Map<String, CredentialRole> byWire = new LinkedHashMap<>();
        for (CredentialRole r : values()) {
            byWire.put(r.wire(), r);
        }
        BY_WIRE = Collections.unmodifiableMap(byWire);
    }

    private final String clusterRole;
    private final Action alsoNeeds;

    CredentialRole(String clusterRole, Action alsoNeeds) {
        this.clusterRole = clusterRole;
        this.alsoNeeds = alsoNeeds;
    }

    public String wire() {
        return name().toLowerCase();
    }

    /** The built-in ClusterRole the role's service account is bound to. */
    public String clusterRole() {
        return clusterRole;
    }

    /** The action on the cluster this role needs besides {@code connect} ({@code connect} itself for view). */
    Action alsoNeeds() {
        return alsoNeeds;
    }
}
