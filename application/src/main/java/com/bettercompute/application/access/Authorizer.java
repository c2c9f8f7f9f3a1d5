package com.bettercompute.application.access;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.AccessPolicy;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.access.RoleBinding;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** Makes authorization decisions for a caller: loads its bindings and ownership, asks {@link AccessPolicy}. */
public final class Authorizer {
    private final AccessRepository access;

    public Authorizer(AccessRepository access) {
        this.access = access;
    }

    /** The caller's bindings, loaded once for deciding many resources (as {@code list} does). */
    public Decider forCaller(Caller caller) {
        return new Decider(caller, access.bindings(caller.id()));
    }

    public void require(Caller caller, Action action, Resource resource) {
        forCaller(caller).require(action, resource);
    }

    /**
     * Decisions for one caller. Its bindings decide first; the clusters it owns are read only when they do
     * not allow, and then once for all the decisions this decider makes.
     */
    public final class Decider {
        private final Caller caller;
        private final List<RoleBinding> bindings;
        private Set<String> owned;

        private Decider(Caller caller, List<RoleBinding> bindings) {
            this.caller = caller;
            this.bindings = bindings;
        }

        public boolean allows(Action action, Resource resource) {
            if (AccessPolicy.allows(bindings, false, action, resource)) {
                return true;
            }
            if (resource.clusterId() == null || !Resource.CLUSTER.equals(resource.type())) {
                return false;
            }
            if (owned == null) {
                owned = access.clustersOwnedBy(caller.id());
            }
            return AccessPolicy.allows(bindings, owned.contains(resource.clusterId()), action, resource);
        }

        /** {@code ACCESS_DENIED} unless allowed; the message names the action, never what the caller cannot see. */
        public void require(Action action, Resource resource) {
            if (!allows(action, resource)) {
                throw new DomainException(ErrorCode.ACCESS_DENIED,
                        "The caller may not " + action.wire() + " on this " + resource.type() + ".",
                        Map.of("action", action.wire(), "resourceType", resource.type()));
            }
        }
    }
}
