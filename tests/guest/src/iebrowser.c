/* Internet Explorer through automation, as a program that opens a browser window
 * does: CoCreateInstance(CLSID_InternetExplorer) for IWebBrowser2 (a local server
 * class: an in-process request finds no class), the new window hidden until
 * put_Visible, its class "IEFrame", navigation to about:blank (the empty page) and
 * what follows it (ReadyState, LocationURL, Busy, the caption), the status bar and
 * toolbar switches, the interfaces the object answers for, and Quit.
 *
 * Checked under Wine 8.0 (tests/guest/run-wine.sh): every line agrees except
 * these, where the expected output keeps Internet Explorer 6's answers:
 * - ReadyState after about:blank: READYSTATE_COMPLETE (4). Wine's page never
 *   completes without its HTML engine (Gecko), so it stays 0.
 * - The caption: the page's title (for a page without one, its address) and
 *   " - Microsoft Internet Explorer"; Wine's frame keeps "Wine Internet Explorer".
 * - put_StatusBar, put_ToolBar and Quit: S_OK and the bars' flags follow; Wine's
 *   are stubs answering E_NOTIMPL (and get_StatusBar reads 0 throughout). */
#define COBJMACROS
#include <windows.h>
#include <objbase.h>
#include <exdisp.h>
#include <stdio.h>

static const CLSID clsid_ie = {0x0002df01, 0, 0, {0xc0, 0, 0, 0, 0, 0, 0, 0x46}};
static const IID iid_wb2 = {0xd30c1661, 0xcdaf, 0x11d0, {0x8a, 0x3e, 0x00, 0xc0, 0x4f, 0xc9, 0xe2, 0x6e}};
static const IID iid_wbapp = {0x0002df05, 0, 0, {0xc0, 0, 0, 0, 0, 0, 0, 0x46}};
static const IID iid_dispatch = {0x00020400, 0, 0, {0xc0, 0, 0, 0, 0, 0, 0, 0x46}};
/* IClassFactory, which the browser object is not. */
static const IID iid_classfactory = {0x00000001, 0, 0, {0xc0, 0, 0, 0, 0, 0, 0, 0x46}};

static void print_bstr(const char *what, BSTR s)
{
    printf("%s: \"", what);
    if (s)
        for (const WCHAR *p = s; *p; p++)
            putchar(*p < 128 ? (char)*p : '?');
    printf("\"\n");
}

/* Runs the thread's messages until the page is complete (Navigate may finish
 * later, as Windows' does) or about two seconds pass. */
static READYSTATE wait_ready(IWebBrowser2 *wb)
{
    READYSTATE rs = READYSTATE_UNINITIALIZED;
    for (int i = 0; i < 200; i++) {
        MSG msg;
        while (PeekMessageW(&msg, 0, 0, 0, PM_REMOVE)) {
            TranslateMessage(&msg);
            DispatchMessageW(&msg);
        }
        if (SUCCEEDED(IWebBrowser2_get_ReadyState(wb, &rs)) && rs == READYSTATE_COMPLETE)
            break;
        Sleep(10);
    }
    return rs;
}

int main(void)
{
    IWebBrowser2 *wb = NULL;
    HRESULT hr = CoCreateInstance(&clsid_ie, NULL, CLSCTX_LOCAL_SERVER, &iid_wb2, (void **)&wb);
    printf("before CoInitialize: %08lx\n", (unsigned long)hr);
    CoInitialize(NULL);
    hr = CoCreateInstance(&clsid_ie, NULL, CLSCTX_INPROC_SERVER, &iid_wb2, (void **)&wb);
    printf("in-process: %08lx\n", (unsigned long)hr);
    hr = CoCreateInstance(&clsid_ie, NULL, CLSCTX_LOCAL_SERVER, &iid_wb2, (void **)&wb);
    printf("local server: %08lx\n", (unsigned long)hr);
    if (FAILED(hr) || !wb)
        return 1;

    VARIANT_BOOL vb = 1;
    hr = IWebBrowser2_get_Visible(wb, &vb);
    printf("get_Visible: %08lx %d\n", (unsigned long)hr, vb);
    SHANDLE_PTR hwnd_value = 0;
    hr = IWebBrowser2_get_HWND(wb, &hwnd_value);
    HWND frame = (HWND)hwnd_value;
    char cls[64] = "";
    GetClassNameA(frame, cls, sizeof cls);
    printf("get_HWND: %08lx class \"%s\" visible %d\n", (unsigned long)hr, cls,
           IsWindowVisible(frame) ? 1 : 0);

    hr = IWebBrowser2_put_Visible(wb, VARIANT_TRUE);
    vb = 0;
    IWebBrowser2_get_Visible(wb, &vb);
    printf("put_Visible(TRUE): %08lx, now %d, window visible %d\n", (unsigned long)hr, vb,
           IsWindowVisible(frame) ? 1 : 0);

    BSTR url = SysAllocString(L"about:blank");
    /* The optional arguments as empty VARIANTs: the object is in another process
     * on Windows, whose marshalling refuses NULL for them (RPC_X_NULL_REF_POINTER). */
    VARIANT empty;
    VariantInit(&empty);
    hr = IWebBrowser2_Navigate(wb, url, &empty, &empty, &empty, &empty);
    SysFreeString(url);
    printf("Navigate(about:blank): %08lx\n", (unsigned long)hr);
    READYSTATE rs = wait_ready(wb);
    printf("ReadyState: %d\n", (int)rs);
    BSTR loc = NULL;
    hr = IWebBrowser2_get_LocationURL(wb, &loc);
    printf("get_LocationURL: %08lx\n", (unsigned long)hr);
    print_bstr("  LocationURL", loc);
    SysFreeString(loc);
    vb = 1;
    hr = IWebBrowser2_get_Busy(wb, &vb);
    printf("get_Busy: %08lx %d\n", (unsigned long)hr, vb);
    char title[128] = "";
    GetWindowTextA(frame, title, sizeof title);
    printf("caption: \"%s\"\n", title);

    hr = IWebBrowser2_put_StatusBar(wb, VARIANT_FALSE);
    vb = 1;
    IWebBrowser2_get_StatusBar(wb, &vb);
    printf("put_StatusBar(FALSE): %08lx, now %d\n", (unsigned long)hr, vb);
    hr = IWebBrowser2_put_ToolBar(wb, 0);
    int tb = 1;
    IWebBrowser2_get_ToolBar(wb, &tb);
    printf("put_ToolBar(0): %08lx, now %d\n", (unsigned long)hr, tb);

    IUnknown *unk = NULL;
    hr = IWebBrowser2_QueryInterface(wb, &iid_wbapp, (void **)&unk);
    printf("QueryInterface(IWebBrowserApp): %08lx\n", (unsigned long)hr);
    if (unk)
        IUnknown_Release(unk);
    unk = NULL;
    hr = IWebBrowser2_QueryInterface(wb, &iid_dispatch, (void **)&unk);
    printf("QueryInterface(IDispatch): %08lx\n", (unsigned long)hr);
    if (unk)
        IUnknown_Release(unk);
    unk = (IUnknown *)1;
    hr = IWebBrowser2_QueryInterface(wb, &iid_classfactory, (void **)&unk);
    printf("QueryInterface(IClassFactory): %08lx %s\n", (unsigned long)hr, unk ? "set" : "NULL");

    hr = IWebBrowser2_Quit(wb);
    printf("Quit: %08lx\n", (unsigned long)hr);
    IWebBrowser2_Release(wb);
    CoUninitialize();
    return 0;
}
