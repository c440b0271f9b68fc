/*
 * dinput_log: DirectInput 7 keyboard, mouse and joystick devices and the winmm
 * joystick API under scripted input (winterp --headless --deterministic
 * --input SCRIPT; expected/dinput_log.script).
 *
 * Setup (printed): joyGetNumDevs and joyGetPosEx before a pad is plugged in,
 * DirectInputCreateA, the keyboard (c_dfDIKeyboard, buffer of 8) and mouse
 * (c_dfDIMouse, buffer of 4, so one busy tick overflows it) with reading
 * errors before acquisition and without a buffer. Then it waits for pad 0
 * (joyGetPosEx), enumerates the joysticks, creates the pad's device with
 * c_dfDIJoystick (range -1000..1000 on every axis, a 10% dead zone on X,
 * buffer of 16) and a second device on the same pad with a format of its own
 * (Y at 0, button 1 at 4, the hat at 8, default range 0..65535), which only
 * generic interpretation of the format can serve.
 *
 * Every 20 ms on the guest clock it prints, per device, the buffered events
 * (offset, data, whether the sequence number equals the previous event's),
 * GetDeviceData's result when not DI_OK, state changes, and joyGetPosEx
 * (JOY_RETURNALL) when it changes. A lost joystick is re-acquired each poll;
 * results are printed when they change. Escape (read through DirectInput) ends
 * it. The script spaces its ticks 100 ms apart, so each poll sees at most one.
 */
#define DIRECTINPUT_VERSION 0x0700
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <dinput.h>
#include <mmsystem.h>
#include <stdio.h>
#include <string.h>

static HWND win;
static LPDIRECTINPUTA di;
static LPDIRECTINPUTDEVICEA kbd, mouse, joy, custom;
static GUID joy_guid;
static int joys_found;
static DWORD last_seq;
static int have_seq;
static int times_ok = 1;
static DWORD last_time;

static LRESULT CALLBACK wndproc(HWND h, UINT m, WPARAM w, LPARAM l)
{
    return DefWindowProcA(h, m, w, l);
}

static BOOL CALLBACK enum_joy(LPCDIDEVICEINSTANCEA inst, LPVOID ref)
{
    (void)ref;
    if (joys_found++ == 0)
        joy_guid = inst->guidInstance;
    printf("EnumDevices(joystick): type 0x%02lx, subtype %lu, product \"%s\"\n", inst->dwDevType & 0xff,
           (inst->dwDevType >> 8) & 0xff, inst->tszProductName);
    return DIENUM_CONTINUE;
}

static BOOL CALLBACK enum_all(LPCDIDEVICEINSTANCEA inst, LPVOID ref)
{
    (void)ref;
    printf("EnumDevices(all): type 0x%02lx\n", inst->dwDevType & 0xff);
    return DIENUM_CONTINUE;
}

static BOOL CALLBACK enum_axis(LPCDIDEVICEOBJECTINSTANCEA o, LPVOID ref)
{
    (void)ref;
    printf("EnumObjects(DIDFT_AXIS): ofs %lu, absolute axis %d, instance %u, \"%s\"\n", o->dwOfs,
           (o->dwType & DIDFT_ABSAXIS) != 0, (unsigned)DIDFT_GETINSTANCE(o->dwType), o->tszName);
    return DIENUM_CONTINUE;
}

static void set_dword(LPDIRECTINPUTDEVICEA d, REFGUID prop, DWORD how, DWORD obj, DWORD v, const char *what)
{
    DIPROPDWORD p;
    p.diph.dwSize = sizeof p;
    p.diph.dwHeaderSize = sizeof p.diph;
    p.diph.dwObj = obj;
    p.diph.dwHow = how;
    p.dwData = v;
    printf("SetProperty(%s) = 0x%08lx\n", what, (unsigned long)IDirectInputDevice_SetProperty(d, prop, &p.diph));
}

/* Prints and drains a device's buffer. */
static int drain(LPDIRECTINPUTDEVICEA d, const char *name)
{
    DIDEVICEOBJECTDATA ev[32];
    DWORD n = 32;
    int escape = 0;
    HRESULT hr = IDirectInputDevice_GetDeviceData(d, sizeof ev[0], ev, &n, 0);
    if (FAILED(hr))
        return 0;
    if (hr != DI_OK)
        printf("%s GetDeviceData = 0x%08lx (%lu events)\n", name, (unsigned long)hr, n);
    DWORD now = GetTickCount();
    for (DWORD k = 0; k < n; k++) {
        const char *seq = !have_seq ? "first" : ev[k].dwSequence == last_seq ? "same" : ev[k].dwSequence > last_seq ? "later" : "EARLIER";
        printf("%s event ofs %lu data %ld seq %s\n", name, ev[k].dwOfs, (long)ev[k].dwData, seq);
        if (ev[k].dwTimeStamp > now || ev[k].dwTimeStamp < last_time)
            times_ok = 0;
        last_time = ev[k].dwTimeStamp;
        last_seq = ev[k].dwSequence;
        have_seq = 1;
        if (d == kbd && ev[k].dwOfs == DIK_ESCAPE && (ev[k].dwData & 0x80))
            escape = 1;
    }
    return escape;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    (void)prev;
    (void)cmd;
    setvbuf(stdout, NULL, _IONBF, 0);

    WNDCLASSA wc;
    memset(&wc, 0, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.lpszClassName = "dinput_log";
    wc.hbrBackground = (HBRUSH)GetStockObject(BLACK_BRUSH);
    RegisterClassA(&wc);
    win = CreateWindowA("dinput_log", "dinput_log", WS_OVERLAPPEDWINDOW, 0, 0, 200, 150, NULL, NULL, inst, NULL);
    ShowWindow(win, show);

    JOYINFOEX ji;
    memset(&ji, 0, sizeof ji);
    ji.dwSize = sizeof ji;
    ji.dwFlags = JOY_RETURNALL;
    printf("joyGetNumDevs nonzero: %d\n", joyGetNumDevs() != 0);
    printf("joyGetPosEx(0) before a pad = %u\n", joyGetPosEx(0, &ji));

    HRESULT hr = DirectInputCreateA(inst, DIRECTINPUT_VERSION, &di, NULL);
    printf("DirectInputCreateA = 0x%08lx\n", (unsigned long)hr);
    if (FAILED(hr))
        return 1;
    printf("CreateDevice(GUID_SysKeyboard) = 0x%08lx\n",
           (unsigned long)IDirectInput_CreateDevice(di, &GUID_SysKeyboard, &kbd, NULL));
    printf("CreateDevice(GUID_SysMouse) = 0x%08lx\n",
           (unsigned long)IDirectInput_CreateDevice(di, &GUID_SysMouse, &mouse, NULL));
    BYTE keys[256];
    printf("keyboard GetDeviceState before SetDataFormat/Acquire = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_GetDeviceState(kbd, sizeof keys, keys));
    printf("keyboard Acquire without a data format = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(kbd));
    printf("keyboard SetDataFormat(c_dfDIKeyboard) = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetDataFormat(kbd, &c_dfDIKeyboard));
    printf("mouse SetDataFormat(c_dfDIMouse) = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetDataFormat(mouse, &c_dfDIMouse));
    printf("keyboard SetCooperativeLevel = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetCooperativeLevel(kbd, win, DISCL_NONEXCLUSIVE | DISCL_BACKGROUND));
    printf("mouse SetCooperativeLevel = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetCooperativeLevel(mouse, win, DISCL_NONEXCLUSIVE | DISCL_BACKGROUND));
    printf("keyboard Acquire = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(kbd));
    {
        DIDEVICEOBJECTDATA ev;
        DWORD n = 1;
        printf("keyboard GetDeviceData without a buffer = 0x%08lx\n",
               (unsigned long)IDirectInputDevice_GetDeviceData(kbd, sizeof ev, &ev, &n, 0));
    }
    set_dword(kbd, DIPROP_BUFFERSIZE, DIPH_DEVICE, 0, 8, "keyboard buffer while acquired");
    IDirectInputDevice_Unacquire(kbd);
    set_dword(kbd, DIPROP_BUFFERSIZE, DIPH_DEVICE, 0, 8, "keyboard buffer 8");
    set_dword(mouse, DIPROP_BUFFERSIZE, DIPH_DEVICE, 0, 4, "mouse buffer 4");
    /* Set whenever the acquired keyboard's state changes; it cannot change while the
     * device is acquired. */
    HANDLE kev = CreateEventA(NULL, FALSE, FALSE, NULL);
    printf("keyboard SetEventNotification = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetEventNotification(kbd, kev));
    printf("keyboard Acquire = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(kbd));
    printf("keyboard Acquire again = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(kbd));
    printf("keyboard SetEventNotification while acquired = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetEventNotification(kbd, kev));
    int kev_set = 0;
    printf("mouse Acquire = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(mouse));

    /* Wait for the pad, pumping messages. */
    MSG msg;
    while (joyGetPosEx(0, &ji) != JOYERR_NOERROR) {
        while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE))
            DispatchMessageA(&msg);
        Sleep(10);
    }
    printf("pad 0: joyGetPosEx = 0: x %lu y %lu z %lu r %lu u %lu v %lu buttons 0x%lx (%lu down) pov %lu\n",
           ji.dwXpos, ji.dwYpos, ji.dwZpos, ji.dwRpos, ji.dwUpos, ji.dwVpos, ji.dwButtons, ji.dwButtonNumber,
           ji.dwPOV);
    JOYINFOEX last_ji = ji;
    MMRESULT last_jr = JOYERR_NOERROR;

    IDirectInput_EnumDevices(di, 0, enum_all, NULL, DIEDFL_ATTACHEDONLY);
    IDirectInput_EnumDevices(di, DIDEVTYPE_JOYSTICK, enum_joy, NULL, DIEDFL_ATTACHEDONLY);
    printf("joysticks: %d\n", joys_found);
    if (!joys_found)
        return 1;
    printf("CreateDevice(joystick) = 0x%08lx\n", (unsigned long)IDirectInput_CreateDevice(di, &joy_guid, &joy, NULL));
    printf("CreateDevice(joystick, second) = 0x%08lx\n",
           (unsigned long)IDirectInput_CreateDevice(di, &joy_guid, &custom, NULL));
    printf("joystick SetDataFormat(c_dfDIJoystick) = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_SetDataFormat(joy, &c_dfDIJoystick));
    {
        DIDEVCAPS caps;
        memset(&caps, 0, sizeof caps);
        caps.dwSize = sizeof caps;
        hr = IDirectInputDevice_GetCapabilities(joy, &caps);
        printf("joystick GetCapabilities = 0x%08lx: attached %d, type 0x%02lx, %lu axes, %lu buttons, %lu POVs\n",
               (unsigned long)hr, (caps.dwFlags & DIDC_ATTACHED) != 0, caps.dwDevType & 0xff, caps.dwAxes,
               caps.dwButtons, caps.dwPOVs);
    }
    {
        DIPROPRANGE r;
        r.diph.dwSize = sizeof r;
        r.diph.dwHeaderSize = sizeof r.diph;
        r.diph.dwObj = 0;
        r.diph.dwHow = DIPH_DEVICE;
        r.lMin = -1000;
        r.lMax = 1000;
        printf("SetProperty(range -1000..1000) = 0x%08lx\n",
               (unsigned long)IDirectInputDevice_SetProperty(joy, DIPROP_RANGE, &r.diph));
        r.diph.dwObj = DIJOFS_Y;
        r.diph.dwHow = DIPH_BYOFFSET;
        r.lMin = r.lMax = 0;
        hr = IDirectInputDevice_GetProperty(joy, DIPROP_RANGE, &r.diph);
        printf("GetProperty(range of Y) = 0x%08lx: %ld..%ld\n", (unsigned long)hr, r.lMin, r.lMax);
    }
    set_dword(joy, DIPROP_DEADZONE, DIPH_BYOFFSET, DIJOFS_X, 1000, "dead zone 10% on X");
    set_dword(joy, DIPROP_DEADZONE, DIPH_BYOFFSET, DIJOFS_SLIDER(0), 1000, "dead zone on an absent slider");
    set_dword(joy, DIPROP_BUFFERSIZE, DIPH_DEVICE, 0, 16, "joystick buffer 16");
    printf("EnumObjects = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_EnumObjects(joy, enum_axis, NULL, DIDFT_AXIS));
    {
        DIDEVICEOBJECTINSTANCEA oi;
        memset(&oi, 0, sizeof oi);
        oi.dwSize = sizeof oi;
        hr = IDirectInputDevice_GetObjectInfo(joy, &oi, DIJOFS_POV(0), DIPH_BYOFFSET);
        printf("GetObjectInfo(POV 0) = 0x%08lx: \"%s\", POV %d\n", (unsigned long)hr, oi.tszName,
               (oi.dwType & DIDFT_POV) != 0);
        hr = IDirectInputDevice_GetObjectInfo(joy, &oi, DIJOFS_POV(1), DIPH_BYOFFSET);
        printf("GetObjectInfo(POV 1) = 0x%08lx\n", (unsigned long)hr);
    }
    IDirectInputDevice_SetCooperativeLevel(joy, win, DISCL_NONEXCLUSIVE | DISCL_BACKGROUND);
    printf("joystick Acquire = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(joy));
    {
        LPDIRECTINPUTDEVICE2A joy2 = NULL;
        hr = IDirectInputDevice_QueryInterface(joy, &IID_IDirectInputDevice2A, (void **)&joy2);
        printf("joystick QueryInterface(IID_IDirectInputDevice2A) = 0x%08lx, same object: %d\n", (unsigned long)hr,
               (void *)joy2 == (void *)joy);
        if (SUCCEEDED(hr)) {
            /* A device that needs no polling: DI_NOEFFECT. */
            printf("joystick Poll = 0x%08lx\n", (unsigned long)IDirectInputDevice2_Poll(joy2));
            printf("Release of the second reference: %lu\n", IDirectInputDevice2_Release(joy2));
        }
    }

    /* The second device: Y, button 1 (B) and the hat at offsets of its own. */
    static DIOBJECTDATAFORMAT objs[] = {
        {&GUID_YAxis, 0, DIDFT_AXIS | DIDFT_ANYINSTANCE, 0},
        {NULL, 4, DIDFT_BUTTON | DIDFT_MAKEINSTANCE(1), 0},
        {&GUID_POV, 8, DIDFT_POV | DIDFT_ANYINSTANCE, 0},
    };
    static DIDATAFORMAT fmt = {sizeof(DIDATAFORMAT), sizeof(DIOBJECTDATAFORMAT), DIDF_ABSAXIS, 12, 3, objs};
    printf("second SetDataFormat(own format) = 0x%08lx\n", (unsigned long)IDirectInputDevice_SetDataFormat(custom, &fmt));
    IDirectInputDevice_SetCooperativeLevel(custom, win, DISCL_NONEXCLUSIVE | DISCL_BACKGROUND);
    printf("second Acquire = 0x%08lx\n", (unsigned long)IDirectInputDevice_Acquire(custom));

    BYTE last_keys[256];
    memset(last_keys, 0, sizeof last_keys);
    DIMOUSESTATE last_ms;
    memset(&last_ms, 0, sizeof last_ms);
    DIJOYSTATE last_js;
    memset(&last_js, 0x55, sizeof last_js);
    LONG last_custom[3] = {0x55555555, 0x55555555, 0x55555555};
    HRESULT last_jhr = DI_OK, last_acq = DI_OK;
    int done = 0;
    while (!done) {
        while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE))
            DispatchMessageA(&msg);
        Sleep(20);

        if (WaitForSingleObject(kev, 0) == WAIT_OBJECT_0)
            kev_set++;
        done = drain(kbd, "keyboard");
        drain(mouse, "mouse");
        drain(joy, "joystick");

        if (SUCCEEDED(IDirectInputDevice_GetDeviceState(kbd, sizeof keys, keys)) &&
            memcmp(keys, last_keys, sizeof keys) != 0) {
            printf("keyboard state: down");
            for (int k = 0; k < 256; k++)
                if (keys[k] & 0x80)
                    printf(" 0x%02x", k);
            printf("\n");
            memcpy(last_keys, keys, sizeof keys);
        }
        DIMOUSESTATE ms;
        if (SUCCEEDED(IDirectInputDevice_GetDeviceState(mouse, sizeof ms, &ms)) &&
            (ms.lX || ms.lY || ms.lZ || memcmp(ms.rgbButtons, last_ms.rgbButtons, 4) != 0)) {
            printf("mouse state: x %ld y %ld z %ld buttons %02x %02x %02x %02x\n", ms.lX, ms.lY, ms.lZ,
                   ms.rgbButtons[0], ms.rgbButtons[1], ms.rgbButtons[2], ms.rgbButtons[3]);
            last_ms = ms;
        }
        DIJOYSTATE js;
        hr = IDirectInputDevice_GetDeviceState(joy, sizeof js, &js);
        if (hr != last_jhr) {
            printf("joystick GetDeviceState = 0x%08lx\n", (unsigned long)hr);
            last_jhr = hr;
        }
        if (FAILED(hr)) {
            HRESULT a = IDirectInputDevice_Acquire(joy);
            if (a != last_acq) {
                printf("joystick Acquire = 0x%08lx\n", (unsigned long)a);
                last_acq = a;
            }
            if (SUCCEEDED(a))
                IDirectInputDevice_Acquire(custom);
        } else if (memcmp(&js, &last_js, sizeof js) != 0) {
            printf("joystick state: x %ld y %ld z %ld rx %ld ry %ld rz %ld pov %ld buttons", js.lX, js.lY, js.lZ,
                   js.lRx, js.lRy, js.lRz, (long)js.rgdwPOV[0]);
            for (int b = 0; b < 32; b++)
                if (js.rgbButtons[b] & 0x80)
                    printf(" %d", b);
            printf("\n");
            last_js = js;
        }
        LONG c[3];
        if (SUCCEEDED(IDirectInputDevice_GetDeviceState(custom, sizeof c, c)) &&
            memcmp(c, last_custom, sizeof c) != 0) {
            printf("second state: y %ld button 1 %02lx pov %ld\n", c[0], (unsigned long)c[1] & 0xff, c[2]);
            memcpy(last_custom, c, sizeof c);
        }
        MMRESULT jr = joyGetPosEx(0, &ji);
        if (jr != last_jr || (jr == JOYERR_NOERROR && memcmp(&ji, &last_ji, sizeof ji) != 0)) {
            if (jr == JOYERR_NOERROR)
                printf("joyGetPosEx = 0: x %lu y %lu z %lu r %lu u %lu v %lu buttons 0x%lx (%lu down) pov %lu\n",
                       ji.dwXpos, ji.dwYpos, ji.dwZpos, ji.dwRpos, ji.dwUpos, ji.dwVpos, ji.dwButtons,
                       ji.dwButtonNumber, ji.dwPOV);
            else
                printf("joyGetPosEx = %u\n", jr);
            last_jr = jr;
            last_ji = ji;
        }
    }
    printf("time stamps in order and not in the future: %d\n", times_ok);
    printf("keyboard notification event set by the key presses: %s\n", kev_set > 0 ? "yes" : "no");
    hr = IDirectInputDevice_Unacquire(kbd);
    printf("keyboard Unacquire = 0x%08lx\n", (unsigned long)hr);
    printf("keyboard Unacquire again = 0x%08lx\n", (unsigned long)IDirectInputDevice_Unacquire(kbd));
    printf("keyboard GetDeviceState unacquired = 0x%08lx\n",
           (unsigned long)IDirectInputDevice_GetDeviceState(kbd, sizeof keys, keys));
    printf("Release second: %lu\n", IDirectInputDevice_Release(custom));
    printf("Release joystick: %lu\n", IDirectInputDevice_Release(joy));
    printf("Release mouse: %lu\n", IDirectInputDevice_Release(mouse));
    printf("Release keyboard: %lu\n", IDirectInputDevice_Release(kbd));
    printf("Release DirectInput: %lu\n", IDirectInput_Release(di));
    printf("done\n");
    DestroyWindow(win);
    return 0;
}
