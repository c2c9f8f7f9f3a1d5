package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.Views.EventPage;
import com.bettercompute.adapters.http.Views.EventView;
import com.bettercompute.adapters.http.Views.UsageList;
import com.bettercompute.adapters.http.Views.UsageView;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.market.ReadGpuUsage;
import com.bettercompute.application.usage.ReadUsage;
import com.bettercompute.domain.event.StoredEvent;

import java.util.ArrayList;
import java.util.List;

/** {@code GET /api/events} (the domain events in order) and {@code GET /api/usage} (the usage records). */
final class EventRoutes {
    private EventRoutes() {}

    /** @param gpuUsage null when the server has no market: {@code gpu} is then empty */
    static void install(Router router, ReadEvents events, ReadUsage usage, ReadGpuUsage gpuUsage) {
        router.get("/api/events", "Domain events after a sequence, in order", List.of("after", "limit", "tenantId"),
                EventPage.class, (caller, ctx) -> {
                    long after = QueryString.number(ctx.queryParam("after"), "after", 0);
                    int limit = QueryString.clamped(ctx.queryParam("limit"), "limit", ReadEvents.DEFAULT_LIMIT);
                    ReadEvents.Page page = events.read(caller, after, limit, ctx.queryParam("tenantId"));
                    List<EventView> items = new ArrayList<>(page.items().size());
                    for (StoredEvent e : page.items()) {
                        items.add(EventView.of(e));
                    }
                    // next moves past the events the caller may not see, so paging never stalls on them
                    return new EventPage(items, page.next());
                });
        router.get("/api/usage", "A tenant's usage records and its GPU charges per cluster, pool and hour",
                List.of("tenantId", "limit"), UsageList.class, (caller, ctx) -> {
                    int limit = QueryString.clamped(ctx.queryParam("limit"), "limit", 1000);
                    List<UsageView> hours = usage.read(caller, ctx.queryParam("tenantId"), limit).stream().map(UsageView::of).toList();
                    List<MarketViews.GpuUsageView> gpu = gpuUsage == null ? List.of()
                            : gpuUsage.read(caller, ctx.queryParam("tenantId"), limit).stream().map(MarketViews.GpuUsageView::of).toList();
                    return new UsageList(hours, gpu);
                });
    }
}
