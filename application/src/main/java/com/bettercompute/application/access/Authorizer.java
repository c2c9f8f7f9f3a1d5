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

    /** Decisions for one caller. */
    public final class Decider {
        private final Caller caller;
        private final List<RoleBinding> bindings;

        private Decider(Caller caller, List<RoleBinding> bindings) {
            this.caller = caller;
            this.bindings = bindings;
        }

        public boolean allows(Action action, Resource resource) {
            boolean owner = resource.clusterId() != null
                    && access.owner(resource.clusterId()).map(caller.id()::equals).orElse(false);
            return AccessPolicy.allows(bindings, owner, action, resource);
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
