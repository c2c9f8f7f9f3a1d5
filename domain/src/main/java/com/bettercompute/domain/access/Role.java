package com.bettercompute.domain.access;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/** The built-in roles a binding can give. */
public enum Role {
    /** read, connect */
    KUBERNETES_VIEWER("kubernetes-viewer", EnumSet.of(Action.READ, Action.CONNECT)),
    /** viewer + create, update */
    KUBERNETES_EDITOR("kubernetes-editor", EnumSet.of(Action.READ, Action.CONNECT, Action.CREATE, Action.UPDATE)),
    /** editor + delete */
    KUBERNETES_ADMIN("kubernetes-admin", EnumSet.allOf(Action.class));

    private final String wire;
    private final Set<Action> actions;

    Role(String wire, Set<Action> actions) {
        this.wire = wire;
        this.actions = actions;
    }

    public String wire() {
        return wire;
    }

    public boolean allows(Action action) {
        return actions.contains(action);
    }

    public static Optional<Role> fromWire(String s) {
        for (Role r : values()) {
            if (r.wire.equals(s)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
