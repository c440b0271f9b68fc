/*
 * waveout_stream: winmm waveOut with every callback kind, known samples at
 * known guest times, for tests/audio_programs.rs (--audio-dump WAV) and the
 * stdout checks in expected/waveout_stream.stdout.
 *
 * Samples come from the LCG x = x * 1103515245 + 12345 (mod 2^32), a sample
 * being (short)(x >> 16); stereo frames take left then right. Times are guest
 * times since process start (QueryPerformanceCounter).
 *
 * 1. At 300 ms, 44100 Hz 16-bit stereo, CALLBACK_FUNCTION: four headers of
 *    4410 frames are written back to back; the stream is 44100 frames of the
 *    LCG with seed 4. The callback (on winmm's thread) sets an event on
 *    WOM_DONE; the main thread refills finished headers with the next frames
 *    until the stream ends, and closes the device after the last WOM_DONE.
 * 2. At 1500 ms, 44100 Hz 16-bit mono, CALLBACK_EVENT, volume 0x80008000
 *    (half on both channels): one header of 2205 frames (LCG seed 5) with
 *    WHDR_BEGINLOOP | WHDR_ENDLOOP and dwLoops 3 (plays three times).
 * 4. At 1800 ms, 44100 Hz 16-bit stereo: one header of 4410 frames (LCG seed
 *    6), paused at 1825 ms and restarted at 1900 ms.
 * 3. CALLBACK_WINDOW and CALLBACK_THREAD devices play 10 ms of silence; their
 *    MM_WOM_* messages are counted (after part 4, in time).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <stdio.h>
#include <string.h>

static LARGE_INTEGER qpf;

static double now_ms(void)
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1000.0 / (double)qpf.QuadPart;
}

static void wait_until(double ms)
{
    double n = now_ms();
    if (ms - n > 3.0)
        Sleep((DWORD)(ms - n - 2.0));
    while (now_ms() < ms) {
    }
}

static unsigned lcg_state;
static short lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return (short)(lcg_state >> 16);
}

#define NHDR 4
#define BLOCK 4410
#define TOTAL 44100

static HANDLE done_event;
static volatile LONG opens, dones, closes;
static DWORD cb_thread;
static volatile DWORD_PTR cb_instance;

static void CALLBACK wave_cb(HWAVEOUT h, UINT msg, DWORD_PTR inst, DWORD_PTR p1, DWORD_PTR p2)
{
    (void)h;
    (void)p1;
    (void)p2;
    cb_thread = GetCurrentThreadId();
    cb_instance = inst;
    if (msg == WOM_OPEN)
        InterlockedIncrement(&opens);
    else if (msg == WOM_DONE) {
        InterlockedIncrement(&dones);
        SetEvent(done_event);
    } else if (msg == WOM_CLOSE)
        InterlockedIncrement(&closes);
}

static WAVEFORMATEX fmt(int ch, int bits, int rate)
{
    WAVEFORMATEX f;
    memset(&f, 0, sizeof f);
    f.wFormatTag = WAVE_FORMAT_PCM;
    f.nChannels = ch;
    f.nSamplesPerSec = rate;
    f.wBitsPerSample = bits;
    f.nBlockAlign = ch * bits / 8;
    f.nAvgBytesPerSec = rate * f.nBlockAlign;
    return f;
}

static int win_msgs[3];

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    if (m >= MM_WOM_OPEN && m <= MM_WOM_DONE) {
        win_msgs[m - MM_WOM_OPEN]++;
        return 0;
    }
    return DefWindowProcA(h, m, w, l);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WAVEFORMATEX f;
    HWAVEOUT hwo;
    WAVEHDR hdr[NHDR], lh, sh;
    static short data[NHDR][BLOCK * 2];
    static short loopdata[2205];
    static short silence[441 * 2];
    MMRESULT r;
    MMTIME mt;
    WAVEOUTCAPSA caps;
    char text[256];
    int k, j, written = 0, finished = 0;
    DWORD main_thread = GetCurrentThreadId(), vol;
    WNDCLASSA wc;
    HWND hwnd;
    MSG msg;
    int thread_msgs[3] = {0, 0, 0};
    (void)prev;
    (void)cmd;
    (void)show;

    QueryPerformanceFrequency(&qpf);
    printf("waveOutGetNumDevs = %u\n", waveOutGetNumDevs());
    r = waveOutGetDevCapsA(0, &caps, sizeof caps);
    printf("waveOutGetDevCapsA = %u: %u channels, 44k16S %d\n", r, caps.wChannels,
           (caps.dwFormats & WAVE_FORMAT_4S16) != 0);
    printf("waveOutGetDevCapsA(7) = %u\n", waveOutGetDevCapsA(7, &caps, sizeof caps));
    r = waveOutGetErrorTextA(WAVERR_STILLPLAYING, text, sizeof text);
    printf("waveOutGetErrorTextA(33) = %u, text %d\n", r, text[0] != 0);
    printf("waveOutGetErrorTextA(12345) = %u\n", waveOutGetErrorTextA(12345, text, sizeof text));
    f = fmt(2, 12, 44100);
    printf("query 12-bit = %u\n", waveOutOpen(NULL, WAVE_MAPPER, &f, 0, 0, WAVE_FORMAT_QUERY));
    f = fmt(2, 16, 44100);
    printf("query 44100/16/2 = %u\n", waveOutOpen(NULL, WAVE_MAPPER, &f, 0, 0, WAVE_FORMAT_QUERY));

    /* 1: CALLBACK_FUNCTION streaming. */
    done_event = CreateEventA(NULL, FALSE, FALSE, NULL);
    r = waveOutOpen(&hwo, WAVE_MAPPER, &f, (DWORD_PTR)wave_cb, 0x1234, CALLBACK_FUNCTION);
    printf("waveOutOpen(CALLBACK_FUNCTION) = %u\n", r);
    lcg_state = 4;
    memset(hdr, 0, sizeof hdr);
    for (k = 0; k < NHDR; k++) {
        for (j = 0; j < BLOCK * 2; j++)
            data[k][j] = lcg();
        written += BLOCK;
        hdr[k].lpData = (LPSTR)data[k];
        hdr[k].dwBufferLength = BLOCK * 4;
        if (k == 0)
            printf("waveOutWrite unprepared = %u\n", waveOutWrite(hwo, &hdr[0], sizeof(WAVEHDR)));
        waveOutPrepareHeader(hwo, &hdr[k], sizeof(WAVEHDR));
    }
    printf("prepared: %d\n", (hdr[0].dwFlags & WHDR_PREPARED) != 0);
    wait_until(300.0);
    for (k = 0; k < NHDR; k++)
        waveOutWrite(hwo, &hdr[k], sizeof(WAVEHDR));
    printf("in queue: %d\n", (hdr[0].dwFlags & WHDR_INQUEUE) != 0);
    printf("waveOutClose while playing = %u\n", waveOutClose(hwo));
    printf("waveOutUnprepareHeader while queued = %u\n",
           waveOutUnprepareHeader(hwo, &hdr[0], sizeof(WAVEHDR)));
    wait_until(350.0);
    mt.wType = TIME_SAMPLES;
    waveOutGetPosition(hwo, &mt, sizeof mt);
    printf("position at 50 ms: TIME_SAMPLES %d", mt.wType == TIME_SAMPLES);
    printf(", within 2205..2646: %d\n", mt.u.sample >= 2205 && mt.u.sample < 2646);
    while (finished < TOTAL / BLOCK) {
        if (WaitForSingleObject(done_event, 2000) != WAIT_OBJECT_0) {
            printf("WOM_DONE wait timed out\n");
            break;
        }
        for (k = 0; k < NHDR; k++) {
            if (!(hdr[k].dwFlags & WHDR_DONE))
                continue;
            hdr[k].dwFlags &= ~WHDR_DONE;
            finished++;
            if (written < TOTAL) {
                for (j = 0; j < BLOCK * 2; j++)
                    data[k][j] = lcg();
                written += BLOCK;
                waveOutWrite(hwo, &hdr[k], sizeof(WAVEHDR));
            }
        }
    }
    printf("all blocks done by %d ms: %d\n", 1300, now_ms() < 1310.0);
    mt.wType = TIME_BYTES;
    waveOutGetPosition(hwo, &mt, sizeof mt);
    printf("position at the end: %lu bytes\n", mt.u.cb);
    mt.wType = TIME_MS;
    waveOutGetPosition(hwo, &mt, sizeof mt);
    printf("position at the end: %lu ms\n", mt.u.ms);
    for (k = 0; k < NHDR; k++)
        waveOutUnprepareHeader(hwo, &hdr[k], sizeof(WAVEHDR));
    printf("waveOutClose = %u\n", waveOutClose(hwo));
    Sleep(20);
    printf("callbacks: open %ld done %ld close %ld, instance %d, on another thread %d\n", opens,
           dones, closes, cb_instance == 0x1234, cb_thread != 0 && cb_thread != main_thread);

    /* 2: CALLBACK_EVENT, volume, a looped header. */
    {
        HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
        double t0;
        f = fmt(1, 16, 44100);
        r = waveOutOpen(&hwo, 0, &f, (DWORD_PTR)ev, 0, CALLBACK_EVENT);
        printf("waveOutOpen(CALLBACK_EVENT) = %u, open event set %d\n", r,
               WaitForSingleObject(ev, 0) == WAIT_OBJECT_0);
        printf("waveOutSetVolume = %u\n", waveOutSetVolume(hwo, 0x80008000));
        waveOutGetVolume(hwo, &vol);
        printf("waveOutGetVolume = %08lx\n", vol);
        lcg_state = 5;
        for (j = 0; j < 2205; j++)
            loopdata[j] = lcg();
        memset(&lh, 0, sizeof lh);
        lh.lpData = (LPSTR)loopdata;
        lh.dwBufferLength = sizeof loopdata;
        lh.dwFlags = WHDR_BEGINLOOP | WHDR_ENDLOOP;
        lh.dwLoops = 3;
        waveOutPrepareHeader(hwo, &lh, sizeof lh);
        wait_until(1500.0);
        t0 = now_ms();
        waveOutWrite(hwo, &lh, sizeof lh);
        WaitForSingleObject(ev, 1000);
        /* The counter's ticks are not whole microseconds: allow for rounding. */
        t0 = now_ms() - t0;
        printf("looped header done after 150 ms: %d, WHDR_DONE %d\n", t0 >= 149.5 && t0 < 160.0,
               (lh.dwFlags & WHDR_DONE) != 0);
        waveOutUnprepareHeader(hwo, &lh, sizeof lh);
        waveOutClose(hwo);
        CloseHandle(ev);
    }

    /* 4: pause and restart: 4410 stereo frames of LCG(6) written at 1800 ms,
     * paused at 1825 ms, restarted at 1900 ms. */
    {
        HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
        f = fmt(2, 16, 44100);
        waveOutOpen(&hwo, WAVE_MAPPER, &f, (DWORD_PTR)ev, 0, CALLBACK_EVENT);
        WaitForSingleObject(ev, 0);
        lcg_state = 6;
        for (j = 0; j < BLOCK * 2; j++)
            data[0][j] = lcg();
        memset(&hdr[0], 0, sizeof hdr[0]);
        hdr[0].lpData = (LPSTR)data[0];
        hdr[0].dwBufferLength = BLOCK * 4;
        waveOutPrepareHeader(hwo, &hdr[0], sizeof(WAVEHDR));
        wait_until(1800.0);
        waveOutWrite(hwo, &hdr[0], sizeof(WAVEHDR));
        wait_until(1825.0);
        printf("waveOutPause = %u\n", waveOutPause(hwo));
        wait_until(1890.0);
        mt.wType = TIME_SAMPLES;
        waveOutGetPosition(hwo, &mt, sizeof mt);
        printf("position while paused: 1102..1104 samples: %d, WHDR_DONE %d\n",
               mt.u.sample >= 1102 && mt.u.sample <= 1104, (hdr[0].dwFlags & WHDR_DONE) != 0);
        wait_until(1900.0);
        printf("waveOutRestart = %u\n", waveOutRestart(hwo));
        WaitForSingleObject(ev, 1000);
        printf("paused header done: %d\n", (hdr[0].dwFlags & WHDR_DONE) != 0);
        waveOutUnprepareHeader(hwo, &hdr[0], sizeof(WAVEHDR));
        waveOutClose(hwo);
        CloseHandle(ev);
    }

    /* 3: CALLBACK_WINDOW and CALLBACK_THREAD. */
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = "waveout_stream";
    RegisterClassA(&wc);
    hwnd = CreateWindowA("waveout_stream", "waveout_stream", WS_OVERLAPPEDWINDOW, 0, 0, 160, 120,
                         NULL, NULL, inst, NULL);
    f = fmt(2, 16, 44100);
    memset(&sh, 0, sizeof sh);
    sh.lpData = (LPSTR)silence;
    sh.dwBufferLength = sizeof silence;
    r = waveOutOpen(&hwo, WAVE_MAPPER, &f, (DWORD_PTR)hwnd, 0, CALLBACK_WINDOW);
    printf("waveOutOpen(CALLBACK_WINDOW) = %u\n", r);
    waveOutPrepareHeader(hwo, &sh, sizeof sh);
    waveOutWrite(hwo, &sh, sizeof sh);
    while (!(sh.dwFlags & WHDR_DONE))
        Sleep(1);
    waveOutUnprepareHeader(hwo, &sh, sizeof sh);
    waveOutClose(hwo);
    while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE))
        DispatchMessageA(&msg);
    printf("window messages: open %d done %d close %d\n", win_msgs[0], win_msgs[2], win_msgs[1]);

    r = waveOutOpen(&hwo, WAVE_MAPPER, &f, main_thread, 0, CALLBACK_THREAD);
    printf("waveOutOpen(CALLBACK_THREAD) = %u\n", r);
    waveOutPrepareHeader(hwo, &sh, sizeof sh);
    waveOutWrite(hwo, &sh, sizeof sh);
    /* Reset returns the header at once. */
    r = waveOutReset(hwo);
    printf("waveOutReset = %u, WHDR_DONE %d\n", r, (sh.dwFlags & WHDR_DONE) != 0);
    waveOutUnprepareHeader(hwo, &sh, sizeof sh);
    waveOutClose(hwo);
    while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE))
        if (msg.hwnd == NULL && msg.message >= MM_WOM_OPEN && msg.message <= MM_WOM_DONE)
            thread_msgs[msg.message - MM_WOM_OPEN]++;
    printf("thread messages: open %d done %d close %d\n", thread_msgs[0], thread_msgs[2],
           thread_msgs[1]);
    DestroyWindow(hwnd);
    return 0;
}
