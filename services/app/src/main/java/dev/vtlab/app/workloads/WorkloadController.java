package dev.vtlab.app.workloads;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.vtlab.common.runtime.ThreadInfo;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The scenarios beside order-summary that isolate one property of a request: pure waiting (sleep)
 * and pure computation (cpu). Neither touches the database or the downstream, so what they measure
 * is the threading model alone.
 */
@RestController
class WorkloadController {

    static final int MAX_SLEEP_MS = 60_000;
    static final int MAX_CPU_WORK = 1_000_000;

    /** Block the request thread for {@code ms}: the classic "does it scale with waiting" demo. */
    @Operation(summary = "Sleep on the request thread", description = "No database, no downstream: the "
            + "thread wall in its purest form.")
    @GetMapping("/api/sleep")
    SleepResult sleep(@Parameter(description = "Milliseconds to sleep, 0 to 60000", example = "5000")
            @RequestParam(name = "ms", required = false) String ms) throws InterruptedException {
        int millis = InvalidParameterException.parse("ms", ms, 0, MAX_SLEEP_MS);
        long started = System.nanoTime();
        Thread.sleep(millis);
        return new SleepResult(millis, (System.nanoTime() - started) / 1_000_000, ThreadInfo.current());
    }

    /**
     * {@code work} rounds of SHA-256, each over the previous digest: a fixed, JIT-proof amount of
     * computation (the result is returned, so it cannot be optimised away) and no I/O at all.
     */
    @Operation(summary = "Burn CPU: rounds of SHA-256", description = "No I/O at all: a fixed amount of "
            + "computation per request.")
    @GetMapping("/api/cpu")
    CpuResult cpu(@Parameter(description = "SHA-256 rounds, 1 to 1000000", example = "50000")
            @RequestParam(name = "work", required = false) String work) {
        int rounds = InvalidParameterException.parse("work", work, 1, MAX_CPU_WORK);
        MessageDigest sha = sha256();
        byte[] digest = new byte[32];
        for (int i = 0; i < rounds; i++) {
            digest = sha.digest(digest);
        }
        return new CpuResult(rounds, HexFormat.of().formatHex(digest, 0, 8), ThreadInfo.current());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every JDK ships SHA-256", ex);
        }
    }

    record SleepResult(int requestedMs, long sleptMs, ThreadInfo thread) {
    }

    record CpuResult(int work, String digestPrefix, ThreadInfo thread) {
    }
}
