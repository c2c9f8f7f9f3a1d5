package com.bettercompute.domain.catalog;

import com.bettercompute.domain.access.RoleBinding;

import java.util.List;

/** A principal as the catalog names it: its id, its API token's SHA-256 (hex), whether it is an operator, its bindings. */
public record CatalogPrincipal(String id, String tokenSha256, boolean operator, List<RoleBinding> bindings) {
    public CatalogPrincipal {
        bindings = List.copyOf(bindings);
    }
}
