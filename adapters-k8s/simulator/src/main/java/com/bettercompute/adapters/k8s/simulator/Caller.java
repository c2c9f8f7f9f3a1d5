package com.bettercompute.adapters.k8s.simulator;

import java.util.List;

/**
 * Who a request to a simulated cluster is, as kube-apiserver's authenticators tell it: a user name, the
 * uid a ServiceAccount token was bound to (null otherwise) and the groups. Authorization reads only this,
 * so the platform's admin token, a ServiceAccount's token and a person's ID token go through one RBAC.
 */
record Caller(String user, String uid, List<String> groups) {
    static final String AUTHENTICATED = "system:authenticated";
    /** The group kube-apiserver lets do anything without asking RBAC. */
    static final String MASTERS = "system:masters";
    private static final String SERVICE_ACCOUNT = "system:serviceaccount:";

    /** The platform, with the admin token: in {@code system:masters}, as a cluster's bootstrap credential is. */
    static final Caller PLATFORM = new Caller("bcsim:platform", null, List.of(MASTERS, AUTHENTICATED));

    Caller {
        groups = List.copyOf(groups);
    }

    /** A ServiceAccount's token: its user name and groups as Kubernetes makes them. */
    static Caller serviceAccount(String namespace, String name, String uid) {
        return new Caller(SERVICE_ACCOUNT + namespace + ":" + name, uid,
                List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace, AUTHENTICATED));
    }

    /** A person signed in at the platform: the user name and groups its ID token names, and {@code system:authenticated}. */
    static Caller person(String user, List<String> groups) {
        List<String> all = new java.util.ArrayList<>(groups);
        all.add(AUTHENTICATED);
        return new Caller(user, null, all);
    }

    /** The namespace and name when this is a ServiceAccount, else null. */
    String[] serviceAccount() {
        if (!user.startsWith(SERVICE_ACCOUNT)) {
            return null;
        }
        String[] parts = user.substring(SERVICE_ACCOUNT.length()).split(":", -1);
        return parts.length == 2 ? parts : null;
    }
}
