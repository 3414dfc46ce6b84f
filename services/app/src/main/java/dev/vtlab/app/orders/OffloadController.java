package dev.vtlab.app.orders;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.orders.OrderSummary;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/offload/{id}: the order-summary work handed from the request thread to an explicit
 * executor, and waited for (never fire-and-forget) — the pattern teams reach for before flipping
 * Tomcat itself to virtual threads.
 */
@RestController
class OffloadController {

    /** Longer than any one request can legitimately take (pool 5 s + read 10 s), bounded all the same. */
    static final long WAIT_SECONDS = 30;

    private final OrderSummaryService service;
    private final OffloadExecutorConfig offload;

    OffloadController(OrderSummaryService service, OffloadExecutorConfig offload) {
        this.service = service;
        this.offload = offload;
    }

    @Operation(summary = "The order summary, computed on the offload executor",
            description = "The same work as /api/order-summary/{id}, handed from the request thread to "
                    + "OFFLOAD_EXECUTOR (a fixed platform pool of OFFLOAD_POOL threads, or a virtual thread per "
                    + "task) while the request thread waits.")
    @GetMapping("/api/offload/{id}")
    OrderSummary offload(@Parameter(description = "The order id: a positive integer (1 to the number of seeded orders)", example = "42") @PathVariable("id") String id) throws InterruptedException {
        long orderId = InvalidOrderIdException.parse(id);
        Future<OrderSummary> result = offload.executor().submit(() -> service.summarize(orderId));
        try {
            return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException cause) {
                throw cause; // the same 404 / 502 / 503 / 504 as the direct path
            }
            throw new IllegalStateException("offloaded work failed", ex.getCause());
        }
        catch (TimeoutException ex) {
            result.cancel(true);
            throw new OffloadTimeoutException(WAIT_SECONDS);
        }
    }
}
