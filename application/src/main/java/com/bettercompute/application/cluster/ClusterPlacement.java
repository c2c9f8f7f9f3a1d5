package com.bettercompute.application.cluster;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.catalog.Locations;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.LocationType;
import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a cluster may go: the pool as the tenant sees it, and a location of its account. Shared by
 * {@code create} and {@code versions}, which check the pool and location the same way.
 */
public final class ClusterPlacement {
    private final CatalogRepository catalog;

    public ClusterPlacement(CatalogRepository catalog) {
        this.catalog = catalog;
    }

    /** A pool the tenant can see, its account, and the tenant's offer of it (absent for the tenant's own account). */
    public record VisiblePool(Pool pool, ProviderAccount account, Optional<Offer> offer) {}

    /** A checked location: the name as given, its region, and whether it is a zone or a region. */
    public record Location(String name, String region, LocationType type) {}

    /**
     * The pool, if the tenant can see it ({@code NOT_FOUND} otherwise) and it can hold managed Kubernetes
     * clusters ({@code UNSUPPORTED} otherwise).
     */
    public VisiblePool pool(String tenantId, String poolId) {
        Optional<Pool> pool = catalog.pool(poolId);
        Optional<ProviderAccount> account = pool.flatMap(p -> catalog.account(p.accountId()));
        if (pool.isEmpty() || account.isEmpty()) {
            throw notFound(poolId);
        }
        Optional<Offer> offer = account.get().ownedBy(tenantId) ? Optional.empty() : catalog.offer(poolId, tenantId);
        if (!account.get().ownedBy(tenantId) && offer.isEmpty()) {
            throw notFound(poolId);
        }
        if (pool.get().kind() != PoolKind.PROVIDER) {
            throw new DomainException(ErrorCode.UNSUPPORTED,
                    "Pool " + poolId + " is a " + pool.get().kindName() + " pool; clusters need a provider pool.",
                    Map.of("poolId", poolId, "reason", "pool-kind"));
        }
        boolean managed = catalog.provider(account.get().providerId()).map(p -> p.managedKubernetes()).orElse(false);
        if (!managed) {
            throw new DomainException(ErrorCode.UNSUPPORTED,
                    "The provider of pool " + poolId + " does not provide managed Kubernetes.",
                    Map.of("poolId", poolId, "reason", "no-managed-kubernetes"));
        }
        return new VisiblePool(pool.get(), account.get(), offer);
    }

    private static DomainException notFound(String poolId) {
        return new DomainException(ErrorCode.NOT_FOUND, "No pool " + poolId + " is visible to this tenant.", Map.of("poolId", poolId));
    }

    /** A zone the account is configured with, or the region of one; else {@code INVALID_INPUT} with the allowed ones. */
    public static Location location(ProviderAccount account, String location) {
        return find(account, location).orElseThrow(() -> {
            DomainException invalid = Input.invalid(List.of(locationProblem()));
            return new DomainException(ErrorCode.INVALID_INPUT, invalid.getMessage(), withAllowedLocations(invalid.details(), account));
        });
    }

    /** The location if it is a zone the account is configured with, or the region of one. */
    static Optional<Location> find(ProviderAccount account, String location) {
        if (account.zones().contains(location)) {
            return Optional.of(new Location(location, Locations.regionOfZone(location), LocationType.ZONAL));
        }
        if (account.regions().contains(location)) {
            return Optional.of(new Location(location, location, LocationType.REGIONAL));
        }
        return Optional.empty();
    }

    /** What is wrong with a location {@link #find} does not know. */
    static FieldProblem locationProblem() {
        return new FieldProblem("location", "must be a zone of the pool's account or the region of one");
    }

    /** An {@code INVALID_INPUT}'s details with the account's zones and regions beside its fields, for a bad location. */
    static Map<String, Object> withAllowedLocations(Map<String, Object> details, ProviderAccount account) {
        Map<String, Object> out = new LinkedHashMap<>(details);
        out.put("allowedZones", account.zones().stream().sorted().toList());
        out.put("allowedRegions", account.regions());
        return out;
    }
}
