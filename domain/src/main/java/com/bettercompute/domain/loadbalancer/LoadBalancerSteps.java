package com.bettercompute.domain.loadbalancer;

/**
 * The next thing to do for one Service's load balancer, from the platform's row and the Service as the cluster
 * shows it: the whole life of a load balancer as one pure function, run again after each step until it answers
 * {@link Done}. The finalizer comes before any provider call; the row before the address; the address is
 * released before the row goes, and the row before the finalizer.
 */
public final class LoadBalancerSteps {
    private LoadBalancerSteps() {
    }

    /** What to do next. */
    public sealed interface Step permits AddFinalizer, Refuse, Warn, Claim, Reserve, Program, PublishStatus, Forget,
            BeginRelease, Release, ClearStatus, RemoveFinalizer, Done {
    }

    /** Put the platform's finalizer on the Service: before anything is asked of the provider. */
    public record AddFinalizer() implements Step {}

    /** Keep (or make) the row pending with this refusal; nothing is held. */
    public record Refuse(Refusal refusal) implements Step {}

    /** The Service holds its address but cannot be served as it is now: say so, keep the address and forwarding. */
    public record Warn(Refusal refusal) implements Step {}

    /** Take room for it (the cap and the pool are checked when it is taken) and reserve its address next. */
    public record Claim(ServingPolicy.Serve serve) implements Step {}

    /** Reserve (or adopt) its address at the provider. */
    public record Reserve() implements Step {}

    /** Make its forwarding what {@code serve} asks: health check, backends, ports. */
    public record Program(ServingPolicy.Serve serve) implements Step {}

    /** Write the address into the Service's {@code status.loadBalancer.ingress}. */
    public record PublishStatus(String address) implements Step {}

    /** Drop a pending row: it held nothing. */
    public record Forget() implements Step {}

    /** Mark the row releasing, before anything is taken down. */
    public record BeginRelease() implements Step {}

    /** Take its forwarding and its address down at the provider, then drop the row. */
    public record Release() implements Step {}

    /** Empty the Service's {@code status.loadBalancer} (it no longer has one of ours). */
    public record ClearStatus() implements Step {}

    /** Take the platform's finalizer off: nothing of the Service's is left at the provider. */
    public record RemoveFinalizer() implements Step {}

    public record Done() implements Step {}

    /**
     * @param row      the platform's row for the Service, null when none
     * @param service  the Service as the cluster shows it, null when it is gone (or its cluster is)
     * @param decision {@link ServingPolicy#decide} for the Service when it is {@link LoadBalancerService#wanted()}, else null
     */
    public static Step next(LoadBalancer row, LoadBalancerService service, ServingPolicy.Decision decision) {
        boolean wanted = service != null && service.wanted();
        if (!wanted) {
            if (row != null) {
                return switch (row.state()) {
                    case PENDING -> new Forget();
                    case RESERVING, SERVING -> new BeginRelease();
                    case RELEASING -> new Release();
                };
            }
            if (service != null && service.finalizer()) {
                // ours until now (only the platform puts this finalizer on): leave nothing of ours behind
                return service.ingressIp() != null && !service.ours() ? new ClearStatus() : new RemoveFinalizer();
            }
            return new Done();
        }
        if (!service.finalizer()) {
            return new AddFinalizer();
        }
        if (row == null || row.state() == LoadBalancerState.PENDING) {
            if (decision instanceof ServingPolicy.Refuse refuse) {
                boolean same = row != null && row.refusal() == refuse.refusal().reason()
                        && refuse.refusal().message().equals(row.refusalText());
                return same ? new Done() : new Refuse(refuse.refusal());
            }
            return new Claim((ServingPolicy.Serve) decision);
        }
        return switch (row.state()) {
            case RESERVING -> new Reserve();
            case RELEASING -> new Release();
            case SERVING -> {
                if (decision instanceof ServingPolicy.Refuse refuse) {
                    yield row.address().equals(service.ingressIp()) ? new Warn(refuse.refusal()) : new PublishStatus(row.address());
                }
                ServingPolicy.Serve serve = (ServingPolicy.Serve) decision;
                if (!row.programmedAs(serve)) {
                    yield new Program(serve);
                }
                yield row.address().equals(service.ingressIp()) ? new Done() : new PublishStatus(row.address());
            }
            case PENDING -> throw new IllegalStateException("handled above");
        };
    }
}
