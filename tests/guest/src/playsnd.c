/*
 * playsnd: WINMM's multimedia file I/O and PlaySound, for tests/guest_programs.rs
 * (stdout, expected/playsnd.stdout) and tests/audio_programs.rs (the samples in
 * the --audio-dump WAV).
 *
 * Samples come from the LCG x = x * 1103515245 + 12345 (mod 2^32), a sample
 * being (short)(x >> 16); stereo frames take left then right.
 *
 * 1. mmio writes playsnd.wav: RIFF WAVE { fmt (PCMWAVEFORMAT, 16 bytes), data }
 *    with mmioCreateChunk and sizes fixed by mmioAscend: 44100 Hz 16-bit
 *    stereo, 11025 frames (250 ms) of LCG seed 7.
 * 2. mmio reads it back (buffered, MMIO_ALLOCBUF): the chunks' ids, sizes and
 *    offsets, the format, a missed MMIO_FINDCHUNK, the data through mmioRead
 *    and again through direct buffer access (mmioGetInfo/mmioAdvance), and the
 *    same file image as a memory file (FOURCC_MEM).
 * 3. PlaySound(SND_FILENAME | SND_SYNC) plays the file: returns when it ends.
 * 4. PlaySound(SND_MEMORY | SND_ASYNC) of a 1 s 22050 Hz 8-bit mono sine (441 Hz,
 *    128 + round(100 sin)); a SND_NOSTOP sound meanwhile is refused; 100 ms
 *    later PlaySound(NULL, NULL, SND_PURGE) stops it.
 * 5. SND_MEMORY | SND_ASYNC | SND_LOOP of 441 frames (10 ms, 44100 Hz 16-bit
 *    mono, LCG seed 8), stopped with PlaySound(NULL, NULL, 0) 50 ms later.
 * 6. The WAVE resource CHIRP (playsnd.rc) with SND_RESOURCE | SND_SYNC.
 * Aliases and missing files have no sound (FALSE).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <mmsystem.h>
#include <stdio.h>
#include <string.h>

static unsigned lcg_state;
static short lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return (short)(lcg_state >> 16);
}

#define FRAMES 11025
static short samples[2 * FRAMES];

static void fcc(const char *what, FOURCC f)
{
    printf("%s %c%c%c%c", what, (char)(f & 0xff), (char)((f >> 8) & 0xff),
           (char)((f >> 16) & 0xff), (char)(f >> 24));
}

static void print_ck(const char *name, const MMCKINFO *ck)
{
    printf("%s:", name);
    fcc(" ckid", ck->ckid);
    printf(" cksize %lu", (unsigned long)ck->cksize);
    if (ck->ckid == FOURCC_RIFF || ck->ckid == FOURCC_LIST)
        fcc(" fccType", ck->fccType);
    printf(" dwDataOffset %lu\n", (unsigned long)ck->dwDataOffset);
}

/* A RIFF WAVE image of a PCM format and data, in buf; returns its length. */
static DWORD wav_image(BYTE *buf, WORD channels, DWORD rate, WORD bits, const void *data,
                       DWORD len)
{
    PCMWAVEFORMAT f;
    DWORD n;
    f.wf.wFormatTag = WAVE_FORMAT_PCM;
    f.wf.nChannels = channels;
    f.wf.nSamplesPerSec = rate;
    f.wf.nBlockAlign = (WORD)(channels * bits / 8);
    f.wf.nAvgBytesPerSec = rate * f.wf.nBlockAlign;
    f.wBitsPerSample = bits;
    memcpy(buf, "RIFF", 4);
    n = 4 + 8 + sizeof f + 8 + len;
    memcpy(buf + 4, &n, 4);
    memcpy(buf + 8, "WAVEfmt ", 8);
    n = sizeof f;
    memcpy(buf + 16, &n, 4);
    memcpy(buf + 20, &f, sizeof f);
    memcpy(buf + 36, "data", 4);
    memcpy(buf + 40, &len, 4);
    memcpy(buf + 44, data, len);
    return 44 + len;
}

static int write_file(void)
{
    HMMIO h;
    MMCKINFO riff, ck;
    PCMWAVEFORMAT f;
    LONG n;
    MMRESULT r;

    h = mmioOpenA("playsnd.wav", NULL, MMIO_CREATE | MMIO_WRITE);
    printf("mmioOpen(MMIO_CREATE | MMIO_WRITE): %s\n", h ? "handle" : "NULL");
    if (!h)
        return 0;
    memset(&riff, 0, sizeof riff);
    riff.fccType = mmioFOURCC('W', 'A', 'V', 'E');
    r = mmioCreateChunk(h, &riff, MMIO_CREATERIFF);
    printf("mmioCreateChunk(RIFF WAVE): %u, dwFlags MMIO_DIRTY: %s\n", r,
           riff.dwFlags == MMIO_DIRTY ? "yes" : "no");
    memset(&ck, 0, sizeof ck);
    ck.ckid = mmioFOURCC('f', 'm', 't', ' ');
    r = mmioCreateChunk(h, &ck, 0);
    f.wf.wFormatTag = WAVE_FORMAT_PCM;
    f.wf.nChannels = 2;
    f.wf.nSamplesPerSec = 44100;
    f.wf.nAvgBytesPerSec = 44100 * 4;
    f.wf.nBlockAlign = 4;
    f.wBitsPerSample = 16;
    n = mmioWrite(h, (const char *)&f, sizeof f);
    printf("fmt: mmioCreateChunk %u, mmioWrite %ld, mmioAscend %u\n", r, n,
           mmioAscend(h, &ck, 0));
    ck.ckid = mmioFOURCC('d', 'a', 't', 'a');
    ck.cksize = 0;
    r = mmioCreateChunk(h, &ck, 0);
    n = mmioWrite(h, (const char *)samples, sizeof samples);
    printf("data: mmioCreateChunk %u, mmioWrite %ld", r, n);
    r = mmioAscend(h, &ck, 0);
    printf(", mmioAscend %u, cksize %lu\n", r, (unsigned long)ck.cksize);
    r = mmioAscend(h, &riff, 0);
    printf("RIFF: mmioAscend %u, cksize %lu, position %ld\n", r, (unsigned long)riff.cksize,
           mmioSeek(h, 0, SEEK_CUR));
    printf("mmioClose: %u\n", mmioClose(h, 0));
    return 1;
}

static void read_file(void)
{
    MMIOINFO info;
    HMMIO h;
    MMCKINFO riff, ck;
    PCMWAVEFORMAT f;
    LONG n, pos;
    MMRESULT r;
    DWORD k, left, sum, want, got;
    static short back[2 * FRAMES];

    memset(&info, 0, sizeof info);
    h = mmioOpenA("no such file.wav", &info, MMIO_READ);
    printf("mmioOpen(missing file): %s, wErrorRet %u\n", h ? "handle" : "NULL", info.wErrorRet);

    h = mmioOpenA("playsnd.wav", NULL, MMIO_READ | MMIO_ALLOCBUF);
    printf("mmioOpen(MMIO_READ | MMIO_ALLOCBUF): %s\n", h ? "handle" : "NULL");
    if (!h)
        return;
    printf("size by mmioSeek(SEEK_END): %ld\n", mmioSeek(h, 0, SEEK_END));
    mmioSeek(h, 0, SEEK_SET);
    memset(&riff, 0, sizeof riff);
    riff.fccType = mmioFOURCC('W', 'A', 'V', 'E');
    r = mmioDescend(h, &riff, NULL, MMIO_FINDRIFF);
    printf("mmioDescend(MMIO_FINDRIFF WAVE): %u, position %ld\n", r, mmioSeek(h, 0, SEEK_CUR));
    print_ck("  RIFF", &riff);
    memset(&ck, 0, sizeof ck);
    ck.ckid = mmioFOURCC('s', 'm', 'p', 'l');
    r = mmioDescend(h, &ck, &riff, MMIO_FINDCHUNK);
    printf("mmioDescend(MMIO_FINDCHUNK smpl): %u (MMIOERR_CHUNKNOTFOUND %u)\n", r,
           MMIOERR_CHUNKNOTFOUND);
    /* After a miss the position is undefined: back to the form's first chunk,
     * as the SDK's example does. */
    mmioSeek(h, riff.dwDataOffset + 4, SEEK_SET);
    ck.ckid = mmioFOURCC('f', 'm', 't', ' ');
    r = mmioDescend(h, &ck, &riff, MMIO_FINDCHUNK);
    printf("mmioDescend(MMIO_FINDCHUNK fmt): %u\n", r);
    print_ck("  fmt", &ck);
    n = mmioRead(h, (HPSTR)&f, sizeof f);
    printf("  mmioRead %ld: wFormatTag %u nChannels %u nSamplesPerSec %lu nAvgBytesPerSec %lu "
           "nBlockAlign %u wBitsPerSample %u\n",
           n, f.wf.wFormatTag, f.wf.nChannels, (unsigned long)f.wf.nSamplesPerSec,
           (unsigned long)f.wf.nAvgBytesPerSec, f.wf.nBlockAlign, f.wBitsPerSample);
    r = mmioAscend(h, &ck, 0);
    printf("  mmioAscend %u, position %ld\n", r, mmioSeek(h, 0, SEEK_CUR));
    ck.ckid = mmioFOURCC('d', 'a', 't', 'a');
    r = mmioDescend(h, &ck, &riff, MMIO_FINDCHUNK);
    printf("mmioDescend(MMIO_FINDCHUNK data): %u\n", r);
    print_ck("  data", &ck);
    pos = mmioSeek(h, 0, SEEK_CUR);
    n = mmioRead(h, (HPSTR)back, sizeof back + 100);
    printf("  mmioRead %ld bytes, same samples: %s", n,
           memcmp(back, samples, sizeof samples) ? "no" : "yes");
    printf(", then %ld at the end\n", mmioRead(h, (HPSTR)back, 4));

    /* The same bytes again through the buffer. */
    mmioSeek(h, pos, SEEK_SET);
    r = mmioGetInfo(h, &info, 0);
    printf("mmioGetInfo: %u, buffered: %s, fccIOProc DOS: %s\n", r,
           info.pchBuffer && info.cchBuffer > 0 ? "yes" : "no",
           info.fccIOProc == FOURCC_DOS ? "yes" : "no");
    sum = 0;
    want = 0;
    for (k = 0; k < sizeof samples; k++)
        want = want * 31 + ((BYTE *)samples)[k];
    got = 0;
    for (left = ck.cksize; left > 0; left--) {
        if (info.pchNext == info.pchEndRead) {
            r = mmioAdvance(h, &info, MMIO_READ);
            if (r != 0 || info.pchNext == info.pchEndRead)
                break;
        }
        sum = sum * 31 + (BYTE)*info.pchNext++;
        got++;
    }
    r = mmioSetInfo(h, &info, 0);
    printf("  direct access: %lu bytes, same checksum: %s, mmioSetInfo %u, position %ld\n",
           (unsigned long)got, sum == want ? "yes" : "no", r, mmioSeek(h, 0, SEEK_CUR));
    printf("mmioClose: %u\n", mmioClose(h, 0));
}

static void memory_file(const BYTE *img, DWORD len)
{
    MMIOINFO info;
    HMMIO h;
    MMCKINFO riff, ck;
    MMRESULT r;

    memset(&info, 0, sizeof info);
    info.fccIOProc = FOURCC_MEM;
    info.pchBuffer = (HPSTR)img;
    info.cchBuffer = len;
    h = mmioOpenA(NULL, &info, MMIO_READ);
    printf("mmioOpen(FOURCC_MEM, %lu bytes): %s\n", (unsigned long)len, h ? "handle" : "NULL");
    if (!h)
        return;
    r = mmioDescend(h, &riff, NULL, 0);
    printf("mmioDescend: %u\n", r);
    print_ck("  RIFF", &riff);
    ck.ckid = mmioFOURCC('d', 'a', 't', 'a');
    r = mmioDescend(h, &ck, &riff, MMIO_FINDCHUNK);
    printf("mmioDescend(MMIO_FINDCHUNK data): %u\n", r);
    print_ck("  data", &ck);
    r = mmioAscend(h, &ck, 0);
    printf("  mmioAscend %u, position %ld (the end)\n", r, mmioSeek(h, 0, SEEK_CUR));
    r = mmioDescend(h, &ck, &riff, 0);
    printf("mmioDescend at the end: %u\n", r);
    printf("mmioClose: %u\n", mmioClose(h, 0));
}

static BYTE sine_img[44 + 22050];
static BYTE loop_img[44 + 2 * 441];

int main(void)
{
    BYTE sine[22050];
    short loop[441];
    DWORD k, t0, t1, len;
    BOOL b;

    lcg_state = 7;
    for (k = 0; k < 2 * FRAMES; k++)
        samples[k] = lcg();
    for (k = 0; k < 22050; k++) {
        double x = 100.0 * __builtin_sin(2.0 * 3.14159265358979323846 * 441.0 * k / 22050.0);
        sine[k] = (BYTE)(128 + (int)(x < 0 ? x - 0.5 : x + 0.5));
    }
    lcg_state = 8;
    for (k = 0; k < 441; k++)
        loop[k] = lcg();

    printf("mmioStringToFOURCC(\"wav\", MMIO_TOUPPER): %08lx\n",
           (unsigned long)mmioStringToFOURCCA("wav", MMIO_TOUPPER));
    printf("mmioStringToFOURCC(\"RIFFX\", 0): %08lx\n",
           (unsigned long)mmioStringToFOURCCA("RIFFX", 0));
    if (!write_file())
        return 1;
    read_file();
    len = wav_image(sine_img, 1, 22050, 8, sine, sizeof sine);
    memory_file(sine_img, len);

    t0 = GetTickCount();
    b = PlaySoundA("playsnd.wav", NULL, SND_FILENAME | SND_SYNC);
    t1 = GetTickCount();
    printf("PlaySound(playsnd.wav, SND_FILENAME | SND_SYNC): %d, returned after the sound "
           "(250 ms): %s\n",
           b, t1 - t0 >= 240 ? "yes" : "no");
    printf("PlaySound(missing file, SND_FILENAME | SND_NODEFAULT): %d\n",
           PlaySoundA("no such file.wav", NULL, SND_FILENAME | SND_NODEFAULT | SND_SYNC));

    b = PlaySoundA((LPCSTR)sine_img, NULL, SND_MEMORY | SND_ASYNC);
    printf("PlaySound(sine, SND_MEMORY | SND_ASYNC): %d\n", b);
    printf("PlaySound(playsnd.wav, SND_FILENAME | SND_ASYNC | SND_NOSTOP) meanwhile: %d\n",
           PlaySoundA("playsnd.wav", NULL, SND_FILENAME | SND_ASYNC | SND_NOSTOP));
    Sleep(100);
    printf("PlaySound(NULL, NULL, SND_PURGE): %d\n", PlaySoundA(NULL, NULL, SND_PURGE));

    len = wav_image(loop_img, 1, 44100, 16, loop, sizeof loop);
    b = PlaySoundA((LPCSTR)loop_img, NULL, SND_MEMORY | SND_ASYNC | SND_LOOP);
    printf("PlaySound(10 ms, SND_MEMORY | SND_ASYNC | SND_LOOP): %d\n", b);
    Sleep(50);
    printf("PlaySound(NULL, NULL, 0): %d\n", PlaySoundA(NULL, NULL, 0));

    printf("PlaySound(CHIRP, SND_RESOURCE | SND_SYNC): %d\n",
           PlaySoundA("CHIRP", GetModuleHandleA(NULL), SND_RESOURCE | SND_SYNC));
    printf("PlaySound(missing resource, SND_RESOURCE | SND_NODEFAULT): %d\n",
           PlaySoundA("NOSUCH", GetModuleHandleA(NULL), SND_RESOURCE | SND_NODEFAULT));
    printf("PlaySound(SystemAsterisk, SND_ALIAS | SND_NODEFAULT): %d\n",
           PlaySoundA("SystemAsterisk", NULL, SND_ALIAS | SND_NODEFAULT | SND_SYNC));
    printf("PlaySound(SND_ALIAS_SYSTEMHAND, SND_ALIAS_ID | SND_NODEFAULT): %d\n",
           PlaySoundA((LPCSTR)SND_ALIAS_SYSTEMHAND, NULL, SND_ALIAS_ID | SND_NODEFAULT | SND_SYNC));
    printf("sndPlaySound(NULL, 0): %d\n", sndPlaySoundA(NULL, 0));
    DeleteFileA("playsnd.wav");
    return 0;
}
