package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.QueryString.Param;
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
    static final Param AFTER = Param.optional("after", new Schema.Whole(0, Wire.MAX_SAFE_INTEGER, 0L), "the sequence to read after");

    private EventRoutes() {}

    /** @param gpuUsage null when the server has no market: {@code gpu} is then empty */
    static void install(Router router, ReadEvents events, ReadUsage usage, ReadGpuUsage gpuUsage) {
        router.get("/api/events", "Domain events after a sequence, in order", List.of(AFTER,
                        Param.optional("limit", new Schema.Whole(1, ReadEvents.MAX_LIMIT, (long) ReadEvents.DEFAULT_LIMIT), "at most this many"),
                        Param.optional("tenantId", Wire.TENANT_ID, "the tenant whose events to read; an operator may leave it out")),
                EventPage.class, (caller, q) -> {
                    ReadEvents.Page page = events.read(caller, q.whole("after", 0), (int) q.whole("limit", ReadEvents.DEFAULT_LIMIT),
                            q.text("tenantId"));
                    List<EventView> items = new ArrayList<>(page.items().size());
                    for (StoredEvent e : page.items()) {
                        items.add(EventView.of(e));
                    }
                    // next moves past the events the caller may not see, so paging never stalls on them
                    return new EventPage(items, page.next());
                });
        router.get("/api/usage", "A tenant's usage records and its GPU charges per cluster, pool and hour", List.of(
                        Param.required("tenantId", Wire.TENANT_ID, "the tenant whose usage to read"),
                        Param.optional("limit", new Schema.Whole(1, ReadUsage.MAX_LIMIT, 1000L), "at most this many of each")),
                UsageList.class, (caller, q) -> {
                    int limit = (int) q.whole("limit", 1000);
                    List<UsageView> hours = usage.read(caller, q.text("tenantId"), limit).stream().map(UsageView::of).toList();
                    List<MarketViews.GpuUsageView> gpu = gpuUsage == null ? List.of()
                            : gpuUsage.read(caller, q.text("tenantId"), limit).stream().map(MarketViews.GpuUsageView::of).toList();
                    return new UsageList(hours, gpu);
                });
    }
}
