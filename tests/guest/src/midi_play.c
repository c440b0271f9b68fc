/*
 * midi_play: MIDI output, the MCI sequencer and the MCI waveaudio device at
 * known guest times, for tests/audio_programs.rs (--audio-dump WAV) and the
 * stdout checks in expected/midi_play.stdout (a General MIDI synthesizer) and
 * expected/midi_play_nosynth.stdout (none: WINTERP_SOUNDFONT names no file).
 *
 * Times are guest times since process start (QueryPerformanceCounter).
 *
 * 1. At 300 ms the MCI waveaudio device plays test.wav (written here: 4410
 *    frames, 44100 Hz 16-bit stereo, LCG seed 7 as in waveout_stream) with
 *    MCI_NOTIFY; MM_MCINOTIFY(MCI_NOTIFY_SUCCESSFUL) comes at 400 ms.
 * 2. At 600 ms midiOutShortMsg plays middle C on a piano (program 0) and
 *    releases it at 900 ms (through running status); at 1000 ms midiOutLongMsg
 *    sends GM System On (F0 7E 7F 09 01 F7), which resets the synthesizer:
 *    silence from then on, exactly.
 * 3. At 2000 ms the MCI sequencer plays test.mid (written here: format 1, 96
 *    ticks per quarter note, a conductor track setting 120 bpm, four eighth
 *    notes of 0.2 s at 0, 0.25, 0.5 and 0.75 s, the track ending at 1 s) with
 *    MCI_NOTIFY: status mode/position at 2100 ms, MM_MCINOTIFY at 3000 ms.
 * 4. At 3100 ms mciSendCommand(MCI_PLAY, from 500) with MCI_NOTIFY; "stop" at
 *    3300 ms aborts it (MCI_NOTIFY_ABORTED); at 3400 ms GM System On again:
 *    silence to the end.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LARGE_INTEGER qpf;
static HWND wnd;
static int mom_open, mom_done, mom_close;
static int notifies;
static WPARAM last_flag;
static LPARAM last_id;
static double last_notify_ms;

static double now_ms(void)
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1000.0 / (double)qpf.QuadPart;
}

static void pump(void)
{
    MSG m;
    while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {
        if (m.message == MM_MCINOTIFY) {
            notifies++;
            last_flag = m.wParam;
            last_id = m.lParam;
            last_notify_ms = now_ms();
        } else if (m.message == MM_MOM_OPEN)
            mom_open++;
        else if (m.message == MM_MOM_DONE)
            mom_done++;
        else if (m.message == MM_MOM_CLOSE)
            mom_close++;
        else
            DispatchMessageA(&m);
    }
}

static void wait_until(double ms)
{
    while (now_ms() < ms)
        pump();
}

/* Waits (up to `limit` ms of guest time) for the next MM_MCINOTIFY. */
static int wait_notify(double limit)
{
    int n = notifies;
    while (notifies == n && now_ms() < limit)
        pump();
    return notifies != n;
}

static unsigned lcg_state;
static short lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return (short)(lcg_state >> 16);
}

static void put32(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void write_file(const char *name, const void *data, DWORD n)
{
    HANDLE f = CreateFileA(name, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    DWORD w = 0;
    WriteFile(f, data, n, &w, NULL);
    CloseHandle(f);
}

#define WAV_FRAMES 4410
static unsigned char wav[44 + WAV_FRAMES * 4];

static void make_wav(void)
{
    int i;
    memcpy(wav, "RIFF", 4);
    put32(wav + 4, 36 + WAV_FRAMES * 4);
    memcpy(wav + 8, "WAVEfmt ", 8);
    put32(wav + 16, 16);
    put32(wav + 20, 1 | (2 << 16));  /* PCM, 2 channels */
    put32(wav + 24, 44100);
    put32(wav + 28, 44100 * 4);
    put32(wav + 32, 4 | (16 << 16)); /* block align 4, 16 bits */
    memcpy(wav + 36, "data", 4);
    put32(wav + 40, WAV_FRAMES * 4);
    lcg_state = 7;
    for (i = 0; i < WAV_FRAMES * 2; i++) {
        short s = lcg();
        wav[44 + 2 * i] = (unsigned char)s;
        wav[45 + 2 * i] = (unsigned char)(s >> 8);
    }
    write_file("test.wav", wav, sizeof wav);
}

static unsigned char mid[256];

static int chunk(unsigned char *p, const char *id, const unsigned char *body, int n)
{
    memcpy(p, id, 4);
    p[4] = (unsigned char)(n >> 24);
    p[5] = (unsigned char)(n >> 16);
    p[6] = (unsigned char)(n >> 8);
    p[7] = (unsigned char)n;
    memcpy(p + 8, body, n);
    return 8 + n;
}

static int make_mid(void)
{
    static const unsigned char hdr[] = {0, 1, 0, 2, 0, 96};
    /* 500000 us per quarter note (120 bpm); ends at tick 192 (1 s). */
    static const unsigned char conductor[] = {
        0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,
        0x81, 0x40, 0xFF, 0x2F, 0x00,
    };
    /* Piano; notes of 38 ticks every 48 ticks (0.2 s every 0.25 s); the
     * note-offs are note-ons with velocity 0 under running status. */
    static const unsigned char notes[] = {
        0x00, 0xC0, 0x00,
        0x00, 0x90, 60, 100, 38, 60, 0,
        10, 64, 100, 38, 64, 0,
        10, 67, 100, 38, 67, 0,
        10, 72, 100, 38, 72, 0,
        10, 0xFF, 0x2F, 0x00,
    };
    int n = 0;
    n += chunk(mid + n, "MThd", hdr, sizeof hdr);
    n += chunk(mid + n, "MTrk", conductor, sizeof conductor);
    n += chunk(mid + n, "MTrk", notes, sizeof notes);
    write_file("test.mid", mid, n);
    write_file("bad.mid", "MThd\0\0\0\6\0\7\0\1\0\140", 14);
    return n;
}

static char ret[128];

static MCIERROR mci(const char *cmd)
{
    MCIERROR e;
    ret[0] = 0;
    e = mciSendStringA(cmd, ret, sizeof ret, wnd);
    printf("%s -> %lu \"%s\"\n", cmd, e, ret);
    return e;
}

/* An open that succeeds returns the new device's id as a string. */
static void mci_open(const char *cmd, const char *alias)
{
    MCIERROR e;
    ret[0] = 0;
    e = mciSendStringA(cmd, ret, sizeof ret, wnd);
    printf("%s -> %lu, returns %s's id: %d\n", cmd, e, alias,
           ret[0] != 0 && (UINT)atoi(ret) == mciGetDeviceIDA(alias));
}

static void no_synth(void)
{
    MIDIOUTCAPSA caps;
    HMIDIOUT h;
    printf("midiOutGetDevCapsA(0) = %u\n", midiOutGetDevCapsA(0, &caps, sizeof caps));
    printf("midiOutOpen(0) = %u\n", midiOutOpen(&h, 0, 0, 0, CALLBACK_NULL));
    printf("midiOutOpen(MIDI_MAPPER) = %u\n", midiOutOpen(&h, MIDI_MAPPER, 0, 0, CALLBACK_NULL));
    mci("open test.mid type sequencer alias m");
    mci("open cdaudio alias cd");
    mci("sysinfo sequencer quantity");
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    WNDCLASSA wc;
    MIDIOUTCAPSA caps;
    HMIDIOUT hmo;
    MIDIHDR hdr;
    static unsigned char gm_on[] = {0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7};
    MCI_OPEN_PARMSA op;
    MCI_PLAY_PARMS pp;
    MCI_STATUS_PARMS sp;
    MCI_SET_PARMS setp;
    MCIDEVICEID id;
    DWORD vol = 0;
    UINT r;
    int got;
    char text[256];
    (void)prev;
    (void)cmd;
    (void)show;
    QueryPerformanceFrequency(&qpf);
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = DefWindowProcA;
    wc.hInstance = inst;
    wc.lpszClassName = "midi_play";
    RegisterClassA(&wc);
    wnd = CreateWindowA("midi_play", "midi_play", WS_OVERLAPPEDWINDOW, 0, 0, 100, 100, NULL,
                        NULL, inst, NULL);
    make_wav();
    make_mid();

    printf("midiOutGetNumDevs = %u\n", midiOutGetNumDevs());
    if (midiOutGetNumDevs() == 0) {
        no_synth();
        return 0;
    }
    r = midiOutGetDevCapsA(0, &caps, sizeof caps);
    printf("midiOutGetDevCapsA(0) = %u: technology %u (MOD_SWSYNTH), channels %04x, support %lx, "
           "named %d\n",
           r, caps.wTechnology, caps.wChannelMask, caps.dwSupport, caps.szPname[0] != 0);
    printf("midiOutGetDevCapsA(5) = %u\n", midiOutGetDevCapsA(5, &caps, sizeof caps));
    r = midiOutGetErrorTextA(MIDIERR_UNPREPARED, text, sizeof text);
    printf("midiOutGetErrorTextA(MIDIERR_UNPREPARED) = %u, text %d\n", r, text[0] != 0);

    /* Errors of MCI without a device behind the name. */
    mci("open cdaudio alias cd");
    printf("mciGetErrorStringA(266) = %d\n", mciGetErrorStringA(266, text, sizeof text));
    mci("status nosuch mode");
    mci("open missing.mid type sequencer alias x");
    mci("open bad.mid type sequencer alias x");

    /* 1: the wave device. */
    mci_open("open test.wav type waveaudio alias w", "w");
    mci("status w length");
    mci("set w time format samples");
    mci("status w length");
    mci("set w time format ms");
    mci("capability w device type");
    wait_until(300.0);
    mci("play w notify");
    got = wait_notify(500.0);
    printf("wave notify: %d, flag %u, for w %d, after 100 ms %d\n", got, (unsigned)last_flag, (UINT)last_id == mciGetDeviceIDA("w"),
           last_notify_ms >= 399.9 && last_notify_ms < 405.0);
    mci("status w mode");
    mci("status w position");
    mci("close w");

    /* 2: MIDI output. */
    r = midiOutOpen(&hmo, 0, (DWORD_PTR)wnd, 0, CALLBACK_WINDOW);
    printf("midiOutOpen(0, CALLBACK_WINDOW) = %u\n", r);
    r = midiOutGetVolume(hmo, &vol);
    printf("midiOutGetVolume = %u, %08lx\n", r, vol);
    memset(&hdr, 0, sizeof hdr);
    hdr.lpData = (LPSTR)gm_on;
    hdr.dwBufferLength = sizeof gm_on;
    printf("midiOutLongMsg unprepared = %u\n", midiOutLongMsg(hmo, &hdr, sizeof hdr));
    wait_until(600.0);
    midiOutShortMsg(hmo, 0x000000C0);
    printf("note on = %u\n", midiOutShortMsg(hmo, 0x00643C90));
    wait_until(900.0);
    /* Running status: the status byte of the note-on above. */
    printf("note off (running status) = %u\n", midiOutShortMsg(hmo, 0x00003C));
    wait_until(1000.0);
    r = midiOutPrepareHeader(hmo, &hdr, sizeof hdr);
    printf("midiOutPrepareHeader = %u, prepared %d\n", r, (hdr.dwFlags & MHDR_PREPARED) != 0);
    r = midiOutLongMsg(hmo, &hdr, sizeof hdr);
    printf("midiOutLongMsg = %u, done %d\n", r, (hdr.dwFlags & MHDR_DONE) != 0);
    printf("midiOutUnprepareHeader = %u\n", midiOutUnprepareHeader(hmo, &hdr, sizeof hdr));

    /* 3: the sequencer, by command strings. */
    mci_open("open test.mid alias m", "m");
    mci("status m length");
    mci("status m mode");
    mci("status m time format");
    mci("capability m device type");
    mci("capability m can record");
    wait_until(2000.0);
    mci("play m notify");
    wait_until(2100.0);
    mci("status m mode");
    ret[0] = 0;
    mciSendStringA("status m position", ret, sizeof ret, NULL);
    printf("position at 100 ms: 100..102: %d\n", atoi(ret) >= 100 && atoi(ret) <= 102);
    got = wait_notify(3500.0);
    printf("sequencer notify: %d, flag %u, for m %d, after 1000 ms %d\n", got, (unsigned)last_flag, (UINT)last_id == mciGetDeviceIDA("m"),
           last_notify_ms >= 2999.9 && last_notify_ms < 3005.0);
    mci("status m mode");
    mci("status m position");

    /* 4: the sequencer, by command messages. */
    id = mciGetDeviceIDA("m");
    wait_until(3100.0);
    memset(&pp, 0, sizeof pp);
    pp.dwCallback = (DWORD_PTR)wnd;
    pp.dwFrom = 500;
    printf("MCI_PLAY from 500 = %lu\n",
           mciSendCommandA(id, MCI_PLAY, MCI_FROM | MCI_NOTIFY, (DWORD_PTR)&pp));
    wait_until(3300.0);
    mci("stop m");
    got = wait_notify(3350.0);
    printf("aborted notify: %d, flag %u\n", got, (unsigned)last_flag);
    memset(&sp, 0, sizeof sp);
    sp.dwItem = MCI_STATUS_POSITION;
    r = mciSendCommandA(id, MCI_STATUS, MCI_STATUS_ITEM, (DWORD_PTR)&sp);
    printf("MCI_STATUS position after 200 ms from 500 = %u: 699..701: %d\n", r,
           sp.dwReturn >= 699 && sp.dwReturn <= 701);
    sp.dwItem = MCI_STATUS_MODE;
    r = mciSendCommandA(id, MCI_STATUS, MCI_STATUS_ITEM, (DWORD_PTR)&sp);
    printf("MCI_STATUS mode = %u: %lu\n", r, (unsigned long)sp.dwReturn);
    memset(&setp, 0, sizeof setp);
    setp.dwTimeFormat = MCI_FORMAT_BYTES;
    printf("MCI_SET bytes = %lu\n",
           mciSendCommandA(id, MCI_SET, MCI_SET_TIME_FORMAT, (DWORD_PTR)&setp));
    mci("seek m to start");
    mci("status m position");
    mci("close m");
    printf("mciGetDeviceIDA(m) after close = %u\n", mciGetDeviceIDA("m"));

    /* The same file by MCI_OPEN with a type and an alias. */
    memset(&op, 0, sizeof op);
    op.lpstrDeviceType = "sequencer";
    op.lpstrElementName = "test.mid";
    op.lpstrAlias = "song";
    r = mciSendCommandA(0, MCI_OPEN, MCI_OPEN_TYPE | MCI_OPEN_ELEMENT | MCI_OPEN_ALIAS,
                        (DWORD_PTR)&op);
    printf("MCI_OPEN = %u\n", r);
    printf("wDeviceID is song's: %d\n", op.wDeviceID == mciGetDeviceIDA("song"));
    sp.dwItem = MCI_STATUS_LENGTH;
    r = mciSendCommandA(op.wDeviceID, MCI_STATUS, MCI_STATUS_ITEM, (DWORD_PTR)&sp);
    printf("MCI_STATUS length = %u: %lu\n", r, (unsigned long)sp.dwReturn);
    printf("MCI_CLOSE = %lu\n", mciSendCommandA(op.wDeviceID, MCI_CLOSE, 0, 0));

    wait_until(3400.0);
    hdr.dwFlags = 0;
    midiOutPrepareHeader(hmo, &hdr, sizeof hdr);
    midiOutLongMsg(hmo, &hdr, sizeof hdr);
    midiOutUnprepareHeader(hmo, &hdr, sizeof hdr);
    printf("midiOutReset = %u\n", midiOutReset(hmo));
    printf("midiOutClose = %u\n", midiOutClose(hmo));
    wait_until(3500.0);
    printf("MM_MOM_OPEN %d, MM_MOM_DONE %d, MM_MOM_CLOSE %d\n", mom_open, mom_done, mom_close);
    DestroyWindow(wnd);
    return 0;
}
