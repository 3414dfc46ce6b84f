package dev.vtlab.app.orders;

import dev.vtlab.app.downstream.DownstreamClient;
import dev.vtlab.app.pinning.PinnedControlDownstream;
import dev.vtlab.app.system.LiveConnMode;
import dev.vtlab.app.system.LabSettings.PathMode;
import dev.vtlab.app.system.LabSettings;
import dev.vtlab.common.orders.OrderNotFoundException;
import dev.vtlab.common.orders.OrderSummary;
import dev.vtlab.common.runtime.ThreadInfo;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

@Service
class OrderSummaryService {

    /**
     * Enough stripes that unrelated ids almost never share a monitor, so PATH_MODE=synchronized measures
     * the cost of blocking inside a monitor (pinning before JEP 491), not lock contention.
     */
    private static final int STRIPES = 1024;

    private final OrderRepository orders;
    private final DownstreamClient downstream;
    private final PinnedControlDownstream pinnedControl;
    private final TransactionTemplate transaction;
    private final LiveConnMode connMode;
    private final PathMode pathMode;
    private final Object[] stripes = new Object[STRIPES];

    OrderSummaryService(OrderRepository orders, DownstreamClient downstream, PinnedControlDownstream pinnedControl,
            PlatformTransactionManager transactionManager, LabSettings settings, LiveConnMode connMode) {
        this.orders = orders;
        this.downstream = downstream;
        this.pinnedControl = pinnedControl;
        this.transaction = new TransactionTemplate(transactionManager);
        this.connMode = connMode;
        this.pathMode = settings.pathMode();
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    OrderSummary summarize(long id) {
        return switch (connMode.current()) {
            // No transaction: JdbcClient borrows a connection for the query alone.
            case RELEASED -> assemble(id);
            // The transaction binds one connection to this thread until the downstream call has returned,
            // which is how a lazily written service ends up pinning pool connections to slow I/O.
            case HELD -> transaction.execute(status -> assemble(id));
        };
    }

    private OrderSummary assemble(long id) {
        OrderSummary.Row row = orders.findWithCustomer(id).orElseThrow(() -> new OrderNotFoundException(id));
        JsonNode answer = callDownstream(id);
        return new OrderSummary(row.order(), row.customer(), answer, ThreadInfo.current());
    }

    private JsonNode callDownstream(long id) {
        return switch (pathMode) {
            case NORMAL -> downstream.fetch(id);
            case SYNCHRONIZED -> {
                synchronized (stripes[(int) (id % STRIPES)]) {
                    yield downstream.fetch(id);
                }
            }
            case SYNCHRONIZED_PLATFORM_HTTP -> {
                synchronized (stripes[(int) (id % STRIPES)]) {
                    yield pinnedControl.fetchOnPlatformCompletions(id);
                }
            }
            case PINNED_CONTROL -> pinnedControl.fetchPinned(id);
        };
    }
}
