package dev.vtlab.fanout;

import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FanOutTest {

    @Test
    void structuredRunsTheThreeCallsAtTheSameTime() throws InterruptedException {
        // Each call waits until all three have started: only a concurrent fan-out gets past the barrier.
        CyclicBarrier allStarted = new CyclicBarrier(3);
        Supplier<String> call = () -> {
            await(allStarted);
            return Thread.currentThread().isVirtual() ? "virtual" : "platform";
        };

        FanOut.Results<String, String, String> results = FanOut.structured().all(call, call, call);

        assertThat(List.of(results.first(), results.second(), results.third())).containsOnly("virtual");
    }

    @Test
    void sequentialRunsTheCallsInOrderOnTheCallersThread() throws InterruptedException {
        List<String> order = new CopyOnWriteArrayList<>();
        Thread caller = Thread.currentThread();
        Supplier<Boolean> sameThread = () -> Thread.currentThread() == caller;

        FanOut.Results<Boolean, Boolean, Boolean> results = FanOut.sequential().all(
                () -> order.add("first") && sameThread.get(),
                () -> order.add("second") && sameThread.get(),
                () -> order.add("third") && sameThread.get());

        assertThat(order).containsExactly("first", "second", "third");
        assertThat(List.of(results.first(), results.second(), results.third())).containsOnly(true);
    }

    @Test
    void structuredRethrowsTheFirstFailureUnwrappedAndCancelsTheOthers() {
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch cancelled = new CountDownLatch(2);
        Supplier<String> slow = () -> {
            started.countDown();
            try {
                Thread.sleep(30_000);
                return "too late";
            }
            catch (InterruptedException ex) {
                cancelled.countDown();
                throw new IllegalStateException("interrupted");
            }
        };
        Supplier<String> failing = () -> {
            // fail only once both slow calls are running, so cancelling them means interrupting them
            awaitQuietly(started);
            throw new NotFound();
        };

        assertThatThrownBy(() -> FanOut.structured().all(slow, failing, slow)).isInstanceOf(NotFound.class);
        assertThat(awaitQuietly(cancelled)).as("the two slow calls were interrupted").isTrue();
    }

    @Test
    void sequentialStopsAtTheFirstFailure() {
        List<String> ran = new CopyOnWriteArrayList<>();
        assertThatThrownBy(() -> FanOut.sequential().all(
                () -> ran.add("first"),
                () -> {
                    throw new NotFound();
                },
                () -> ran.add("third"))).isInstanceOf(NotFound.class);
        assertThat(ran).containsExactly("first");
    }

    @Test
    void namesMatchTheSettingValues() {
        assertThat(FanOut.sequential().name()).isEqualTo("sequential");
        assertThat(FanOut.structured().name()).isEqualTo("structured");
    }

    private static final class NotFound extends RuntimeException {
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException | BrokenBarrierException | TimeoutException ex) {
            throw new IllegalStateException("the calls did not run concurrently", ex);
        }
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
