/*
 * dsound_play: DirectSound buffers with known samples at known guest times,
 * for tests/audio_programs.rs (which checks the --audio-dump WAV) and the
 * stdout checks of API behaviour in expected/dsound_play.stdout.
 *
 * Samples come from one LCG: x = x * 1103515245 + 12345 (mod 2^32), a sample
 * is (short)(x >> 16); stereo frames take left then right. Times are guest
 * times since process start (QueryPerformanceCounter); each phase waits until
 * its start time (sleeping, then spinning on the counter) and calls Play.
 *
 * 1. One-shot at 200 ms: 44100 Hz 16-bit stereo, 11025 frames, LCG seed 1.
 * 2. Streaming at 600 ms: a looping 4410-frame 44100/16/stereo buffer. It
 *    starts filled with the first 4410 frames of the stream (LCG seed 2);
 *    every 10 ms the program locks the region from its last write position up
 *    to the play cursor (wrapping around the buffer end) and writes the next
 *    stream frames there, 22050 frames in all, then zeros; stopped at 1300 ms.
 * 3. At 1400 ms: 16-bit mono, format 22050 Hz, 4410 frames (LCG seed 3),
 *    with SetFrequency(44100), SetVolume(-602), SetPan(602), one-shot.
 * 4. At 1600 ms: 8-bit mono 22050 Hz, 2205 frames of
 *    128 + round(100 * sin(2 pi 441 k / 22050)), one-shot (resampled).
 * 5. At 1900 ms: position notifications (offsets 0, half, DSBPN_OFFSETSTOP)
 *    on a silent 200 ms one-shot buffer, timed from Play.
 * 6. At 2150 ms: a DuplicateSoundBuffer of the first buffer plays it again.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <dsound.h>
#include <math.h>
#include <stdio.h>

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

static IDirectSoundBuffer *make(IDirectSound *ds, DWORD flags, int channels, int bits,
                                int rate, DWORD bytes)
{
    WAVEFORMATEX f;
    DSBUFFERDESC d;
    IDirectSoundBuffer *b = NULL;
    HRESULT hr;
    memset(&f, 0, sizeof f);
    f.wFormatTag = WAVE_FORMAT_PCM;
    f.nChannels = channels;
    f.nSamplesPerSec = rate;
    f.wBitsPerSample = bits;
    f.nBlockAlign = channels * bits / 8;
    f.nAvgBytesPerSec = rate * f.nBlockAlign;
    memset(&d, 0, sizeof d);
    d.dwSize = sizeof d;
    d.dwFlags = flags;
    d.dwBufferBytes = bytes;
    d.lpwfxFormat = &f;
    hr = IDirectSound_CreateSoundBuffer(ds, &d, &b, NULL);
    if (hr != DS_OK) {
        printf("CreateSoundBuffer failed: %08lx\n", hr);
        ExitProcess(1);
    }
    return b;
}

static void fill_lcg(IDirectSoundBuffer *b, DWORD bytes)
{
    void *p1, *p2;
    DWORD l1, l2, k;
    IDirectSoundBuffer_Lock(b, 0, bytes, &p1, &l1, &p2, &l2, 0);
    for (k = 0; k < l1 / 2; k++)
        ((short *)p1)[k] = lcg();
    IDirectSoundBuffer_Unlock(b, p1, l1, p2, l2);
}

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    return DefWindowProcA(h, m, w, l);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    IDirectSound *ds;
    IDirectSoundBuffer *prim, *one, *st, *c3, *c4, *nb;
    IDirectSoundNotify *notify;
    DSBPOSITIONNOTIFY pn[3];
    HANDLE ev[3];
    WNDCLASSA wc;
    HWND hwnd;
    HRESULT hr;
    DWORD play, write, status, k, v;
    LONG lv;
    void *p1, *p2;
    DWORD l1, l2;
    WAVEFORMATEX wf;
    DSBCAPS caps;
    double t0, times[3];
    int fired = 0;
    (void)prev;
    (void)cmd;
    (void)show;

    QueryPerformanceFrequency(&qpf);
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = "dsound_play";
    RegisterClassA(&wc);
    hwnd = CreateWindowA("dsound_play", "dsound_play", WS_OVERLAPPEDWINDOW, 0, 0, 160, 120,
                         NULL, NULL, inst, NULL);

    hr = DirectSoundCreate(NULL, &ds, NULL);
    printf("DirectSoundCreate = %08lx\n", hr);
    if (hr != DS_OK)
        return 1;
    printf("SetCooperativeLevel(PRIORITY) = %08lx\n",
           IDirectSound_SetCooperativeLevel(ds, hwnd, DSSCL_PRIORITY));

    /* The primary buffer: its format can be set, it cannot be locked. */
    {
        DSBUFFERDESC d;
        memset(&d, 0, sizeof d);
        d.dwSize = sizeof d;
        d.dwFlags = DSBCAPS_PRIMARYBUFFER;
        hr = IDirectSound_CreateSoundBuffer(ds, &d, &prim, NULL);
        printf("primary CreateSoundBuffer = %08lx\n", hr);
        memset(&wf, 0, sizeof wf);
        wf.wFormatTag = WAVE_FORMAT_PCM;
        wf.nChannels = 2;
        wf.nSamplesPerSec = 44100;
        wf.wBitsPerSample = 16;
        wf.nBlockAlign = 4;
        wf.nAvgBytesPerSec = 176400;
        printf("primary SetFormat = %08lx\n", IDirectSoundBuffer_SetFormat(prim, &wf));
        memset(&wf, 0, sizeof wf);
        hr = IDirectSoundBuffer_GetFormat(prim, &wf, sizeof wf, NULL);
        printf("primary GetFormat = %08lx: %d ch %lu Hz %d bits\n", hr, wf.nChannels,
               wf.nSamplesPerSec, wf.wBitsPerSample);
        printf("primary Lock = %08lx\n",
               IDirectSoundBuffer_Lock(prim, 0, 4, &p1, &l1, &p2, &l2, DSBLOCK_ENTIREBUFFER));
        printf("primary Play(0) = %08lx\n", IDirectSoundBuffer_Play(prim, 0, 0, 0));
        printf("primary Play(LOOPING) = %08lx\n",
               IDirectSoundBuffer_Play(prim, 0, 0, DSBPLAY_LOOPING));
    }

    /* IDirectSoundBuffer8 comes from an IDirectSound8 only. */
    {
        IDirectSound8 *ds8;
        IDirectSoundBuffer *b;
        IDirectSoundBuffer8 *b8 = NULL;
        hr = DirectSoundCreate8(NULL, &ds8, NULL);
        printf("DirectSoundCreate8 = %08lx\n", hr);
        IDirectSound8_SetCooperativeLevel(ds8, hwnd, DSSCL_NORMAL);
        b = make((IDirectSound *)ds8, 0, 2, 16, 44100, 4410 * 4);
        hr = IDirectSoundBuffer_QueryInterface(b, &IID_IDirectSoundBuffer8, (void **)&b8);
        printf("QueryInterface(IDirectSoundBuffer8) = %08lx\n", hr);
        if (b8) {
            printf("SetFX = %08lx\n", IDirectSoundBuffer8_SetFX(b8, 0, NULL, NULL));
            IDirectSoundBuffer8_Release(b8);
        }
        IDirectSoundBuffer_Release(b);
        printf("IDirectSound8_Release = %lu\n", IDirectSound8_Release(ds8));
    }

    /* 1: one-shot. */
    one = make(ds, 0, 2, 16, 44100, 11025 * 4);
    lcg_state = 1;
    fill_lcg(one, 11025 * 4);
    {
        void *b8 = NULL;
        hr = IDirectSoundBuffer_QueryInterface(one, &IID_IDirectSoundBuffer8, &b8);
        printf("QueryInterface(IDirectSoundBuffer8) from IDirectSound = %08lx\n", hr);
    }
    caps.dwSize = sizeof caps;
    IDirectSoundBuffer_GetCaps(one, &caps);
    printf("GetCaps: bytes %lu, LOCSOFTWARE %d\n", caps.dwBufferBytes,
           (caps.dwFlags & DSBCAPS_LOCSOFTWARE) != 0);
    printf("SetVolume without CTRLVOLUME = %08lx\n", IDirectSoundBuffer_SetVolume(one, -100));
    printf("GetFrequency without CTRLFREQUENCY = %08lx\n",
           IDirectSoundBuffer_GetFrequency(one, &v));
    printf("Lock past the end = %08lx\n",
           IDirectSoundBuffer_Lock(one, 11025 * 4, 4, &p1, &l1, &p2, &l2, 0));
    /* Wrap-around: 16 bytes from 8 bytes before the end. */
    hr = IDirectSoundBuffer_Lock(one, 11025 * 4 - 8, 16, &p1, &l1, &p2, &l2, 0);
    printf("Lock across the end = %08lx: %lu + %lu bytes, second at the start %d\n", hr, l1,
           l2, p2 != NULL && (char *)p1 + 8 - 11025 * 4 == (char *)p2);
    IDirectSoundBuffer_Unlock(one, p1, l1, p2, l2);
    wait_until(200.0);
    IDirectSoundBuffer_Play(one, 0, 0, 0);
    IDirectSoundBuffer_GetStatus(one, &status);
    printf("one-shot status: PLAYING %d LOOPING %d\n", (status & DSBSTATUS_PLAYING) != 0,
           (status & DSBSTATUS_LOOPING) != 0);
    IDirectSoundBuffer_GetCurrentPosition(one, &play, &write);
    printf("write cursor leads by %lu bytes (10 ms)\n", (write - play + 11025 * 4) % (11025 * 4));
    {
        /* DSBLOCK_FROMWRITECURSOR locks at the write cursor. */
        void *base, *at;
        DWORD lb, la, w2;
        IDirectSoundBuffer_Lock(one, 0, 0, &base, &lb, NULL, NULL, DSBLOCK_ENTIREBUFFER);
        IDirectSoundBuffer_Unlock(one, base, lb, NULL, 0);
        IDirectSoundBuffer_GetCurrentPosition(one, NULL, &w2);
        IDirectSoundBuffer_Lock(one, 0, 4, &at, &la, NULL, NULL, DSBLOCK_FROMWRITECURSOR);
        IDirectSoundBuffer_Unlock(one, at, la, NULL, 0);
        printf("FROMWRITECURSOR locks at the write cursor: %d, ENTIREBUFFER length %lu\n",
               (DWORD)((char *)at - (char *)base) == w2, lb);
    }
    wait_until(330.0);
    IDirectSoundBuffer_GetCurrentPosition(one, &play, &write);
    /* 130 ms exactly in deterministic mode; a host under load may be late. */
    k = (play / 4 * 1000 + 22050) / 44100;
    printf("one-shot at 130 ms: play cursor within 130..139 ms: %d\n", k >= 130 && k < 140);
    wait_until(460.0);
    IDirectSoundBuffer_GetStatus(one, &status);
    IDirectSoundBuffer_GetCurrentPosition(one, &play, &write);
    printf("one-shot after its end: status %lu, play %lu, write %lu\n", status, play, write);

    /* 2: streaming with Lock wrap-around. */
    {
        const DWORD n = 4410, total = 22050;
        DWORD w = 0, written = n;
        st = make(ds, DSBCAPS_GETCURRENTPOSITION2, 2, 16, 44100, n * 4);
        lcg_state = 2;
        fill_lcg(st, n * 4);
        wait_until(600.0);
        IDirectSoundBuffer_Play(st, 0, 0, DSBPLAY_LOOPING);
        IDirectSoundBuffer_GetStatus(st, &status);
        printf("looping status: PLAYING %d LOOPING %d\n", (status & DSBSTATUS_PLAYING) != 0,
               (status & DSBSTATUS_LOOPING) != 0);
        int wraps = 0;
        while (now_ms() < 1300.0) {
            DWORD amount;
            Sleep(10);
            IDirectSoundBuffer_GetCurrentPosition(st, &play, &write);
            play /= 4;
            amount = (play + n - w) % n;
            if (amount == 0)
                continue;
            hr = IDirectSoundBuffer_Lock(st, w * 4, amount * 4, &p1, &l1, &p2, &l2, 0);
            if (hr != DS_OK) {
                printf("Lock = %08lx\n", hr);
                break;
            }
            if (l2)
                wraps++;
            for (k = 0; k < (l1 + l2) / 2; k++) {
                short s = written < total ? lcg() : 0;
                if (k < l1 / 2)
                    ((short *)p1)[k] = s;
                else
                    ((short *)p2)[k - l1 / 2] = s;
                if (k % 2 == 1)
                    written++;
            }
            IDirectSoundBuffer_Unlock(st, p1, l1, p2, l2);
            w = play;
        }
        IDirectSoundBuffer_Stop(st);
        printf("streamed with wrapped locks: %d\n", wraps > 0);
    }

    /* 3: frequency, volume and pan. */
    c3 = make(ds, DSBCAPS_CTRLFREQUENCY | DSBCAPS_CTRLVOLUME | DSBCAPS_CTRLPAN, 1, 16, 22050,
              4410 * 2);
    lcg_state = 3;
    fill_lcg(c3, 4410 * 2);
    printf("SetFrequency(44100) = %08lx\n", IDirectSoundBuffer_SetFrequency(c3, 44100));
    printf("SetVolume(-602) = %08lx\n", IDirectSoundBuffer_SetVolume(c3, -602));
    printf("SetPan(602) = %08lx\n", IDirectSoundBuffer_SetPan(c3, 602));
    printf("SetVolume(1) = %08lx\n", IDirectSoundBuffer_SetVolume(c3, 1));
    IDirectSoundBuffer_GetFrequency(c3, &v);
    IDirectSoundBuffer_GetVolume(c3, &lv);
    printf("GetFrequency %lu GetVolume %ld\n", v, lv);
    IDirectSoundBuffer_GetPan(c3, &lv);
    printf("GetPan %ld\n", lv);
    wait_until(1400.0);
    IDirectSoundBuffer_Play(c3, 0, 0, 0);

    /* 4: 8-bit mono at 22050 Hz (resampled). */
    c4 = make(ds, 0, 1, 8, 22050, 2205);
    IDirectSoundBuffer_Lock(c4, 0, 2205, &p1, &l1, &p2, &l2, 0);
    for (k = 0; k < 2205; k++)
        ((unsigned char *)p1)[k] =
            (unsigned char)(128 + lrint(100.0 * sin(2.0 * 3.14159265358979 * 441.0 * k / 22050.0)));
    IDirectSoundBuffer_Unlock(c4, p1, l1, p2, l2);
    wait_until(1600.0);
    IDirectSoundBuffer_Play(c4, 0, 0, 0);
    /* Notifications, on a silent 200 ms 8-bit buffer. */
    nb = make(ds, DSBCAPS_CTRLPOSITIONNOTIFY, 1, 8, 22050, 4410);
    hr = IDirectSoundBuffer_QueryInterface(nb, &IID_IDirectSoundNotify, (void **)&notify);
    printf("QueryInterface(IDirectSoundNotify) = %08lx\n", hr);
    for (k = 0; k < 3; k++)
        ev[k] = CreateEventA(NULL, FALSE, FALSE, NULL);
    pn[0].dwOffset = 0;
    pn[0].hEventNotify = ev[0];
    pn[1].dwOffset = 2205;
    pn[1].hEventNotify = ev[1];
    pn[2].dwOffset = DSBPN_OFFSETSTOP;
    pn[2].hEventNotify = ev[2];
    printf("SetNotificationPositions = %08lx\n",
           IDirectSoundNotify_SetNotificationPositions(notify, 3, pn));
    wait_until(1900.0);
    t0 = now_ms();
    IDirectSoundBuffer_Play(nb, 0, 0, 0);
    while (fired < 3) {
        DWORD r = WaitForMultipleObjects(3, ev, FALSE, 1000);
        if (r >= WAIT_OBJECT_0 + 3) {
            printf("notification wait timed out\n");
            break;
        }
        times[r - WAIT_OBJECT_0] = now_ms() - t0;
        printf("notification %lu\n", r - WAIT_OBJECT_0);
        fired++;
    }
    /* Within 10 ms: scheduling latency in winterp's OS-thread mode and Windows'. */
    printf("notifications at 0, 100, 200 ms: %d %d %d\n", times[0] < 10.0,
           times[1] >= 100.0 && times[1] < 110.0, times[2] >= 200.0 && times[2] < 210.0);
    IDirectSoundNotify_Release(notify);

    /* 6. At 2150 ms: a duplicate of the one-shot buffer plays the same samples. */
    {
        IDirectSoundBuffer *dup = NULL;
        hr = IDirectSound_DuplicateSoundBuffer(ds, one, &dup);
        printf("DuplicateSoundBuffer = %08lx\n", hr);
        wait_until(2150.0);
        IDirectSoundBuffer_Play(dup, 0, 0, 0);
        IDirectSoundBuffer_GetStatus(one, &status);
        printf("original stays stopped: %d\n", status == 0);
        wait_until(2450.0);
        IDirectSoundBuffer_Release(dup);
    }

    IDirectSoundBuffer_Release(c4);
    IDirectSoundBuffer_Release(c3);
    IDirectSoundBuffer_Release(st);
    IDirectSoundBuffer_Release(nb);
    IDirectSoundBuffer_Release(one);
    IDirectSoundBuffer_Release(prim);
    printf("IDirectSound_Release = %lu\n", IDirectSound_Release(ds));
    DestroyWindow(hwnd);
    return 0;
}
