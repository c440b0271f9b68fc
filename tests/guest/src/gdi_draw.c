/*
 * gdi_draw: one window whose WM_PAINT draws with the classic GDI primitives,
 * for a golden screenshot and for pixel checks that follow from documented
 * GDI rules rather than from any particular renderer.
 *
 * The client area is exactly 320x240 (AdjustWindowRect adds the frame), so
 * the guest frame winterp captures is 320x240. Nothing depends on time,
 * randomness, fonts (except the text region, checked loosely) or the
 * window manager. All pens are 1 pixel wide (cosmetic), so every edge pixel
 * is exact; the display is assumed to be 24/32-bit, where a COLORREF lands
 * unchanged.
 *
 * Known pixels. tests/gui_programs.rs reads the "px" lines below and checks
 * each one in the screenshot (x y 0xRRGGBB), so keep the format:
 * "px X Y RRGGBB  reason". The colours are what the GDI rules give, worked
 * out by hand from the drawing calls, not taken from any run.
 *
 * Background: the whole client area is FillRect'ed white first.
 * px   0   0 ffffff  background, top-left corner
 * px 319 239 ffffff  background, bottom-right corner (client is 320x240)
 *
 * FillRect fills left..right-1 and top..bottom-1 (the right and bottom
 * edges are excluded).
 * px  10  10 ff0000  FillRect red {10,10,50,40}: top-left is inside
 * px  49  39 ff0000  red: right-1, bottom-1 is inside
 * px  50  39 ffffff  red: x = right is outside
 * px  49  40 ffffff  red: y = bottom is outside
 * px   9  10 ffffff  red: left-1 is outside
 * px  60  10 00ff00  FillRect green {60,10,100,40}
 * px  99  39 00ff00  green: last pixel inside
 * px 110  10 0000ff  FillRect blue {110,10,150,40}
 * px 149  39 0000ff  blue: last pixel inside
 * px 150  39 ffffff  blue: right edge excluded
 * px 160  10 ffff00  FillRect yellow {160,10,200,40}
 * px 199  39 ffff00  yellow: last pixel inside
 *
 * Rectangle(210,10,260,40) with a black 1-pixel pen and a cyan brush: the
 * outline covers x 210..259 and y 10..39 (the figure excludes its right
 * and bottom coordinates), the interior is the brush.
 * px 210  10 000000  Rectangle: pen at top-left
 * px 259  10 000000  Rectangle: pen at top-right (right-1)
 * px 259  39 000000  Rectangle: pen at bottom-right (right-1, bottom-1)
 * px 210  39 000000  Rectangle: pen at bottom-left
 * px 235  10 000000  Rectangle: pen along the top edge
 * px 211  11 00ffff  Rectangle: brush just inside the pen
 * px 258  38 00ffff  Rectangle: brush at the far inner corner
 * px 235  25 00ffff  Rectangle: brush in the middle
 * px 260  25 ffffff  Rectangle: nothing at x = right
 * px 235  40 ffffff  Rectangle: nothing at y = bottom
 *
 * Ellipse(270,10,310,40), red pen, blue brush: the centre is the brush, the
 * corners of the bounding box are untouched.
 * px 290  25 0000ff  Ellipse: brush at the centre
 * px 270  10 ffffff  Ellipse: bounding-box corner untouched
 * px 309  39 ffffff  Ellipse: opposite corner untouched
 * px 271  11 ffffff  Ellipse: just inside the corner, still outside the curve
 *
 * Polygon (10,110) (60,50) (110,110), black pen, dark green brush.
 * px  60  90 008000  Polygon: interior
 * px  60 100 008000  Polygon: interior near the base
 * px  15  55 ffffff  Polygon: outside, left of the apex
 * px 105  55 ffffff  Polygon: outside, right of the apex
 * px  60  50 000000  Polygon: the apex vertex is on the pen outline
 * px  56  54 ffffff  Polygon: left edge at y = 54 is x = 56.67; (56,54) is outside
 * px  57  54 000000  Polygon: the pen's pixel nearest that edge
 * GDI pixels are the points of the integer lattice: the fill covers the
 * points inside the figure, and the 1-pixel pen draws the pixel nearest the
 * edge on each row of a steep edge, so no brush pixel lies outside the
 * outline. The test checks that on every row y = 51..109 the first and the
 * last pixel in x 0..114 that is not background is the pen's.
 *
 * Lines with a magenta pen; LineTo draws up to but not including its end
 * point.
 * px 120  50 ff00ff  horizontal MoveTo(120,50) LineTo(200,50): first pixel
 * px 199  50 ff00ff  horizontal: last pixel drawn is x = 199
 * px 200  50 ffffff  horizontal: the end point is excluded
 * px 120  55 ff00ff  vertical MoveTo(120,55) LineTo(120,100): first pixel
 * px 120  99 ff00ff  vertical: last pixel drawn is y = 99
 * px 120 100 ffffff  vertical: the end point is excluded
 * px 130  60 ff00ff  diagonal MoveTo(130,60) LineTo(170,100): start
 * px 150  80 ff00ff  diagonal: a 45-degree line hits (130+i, 60+i)
 * px 169  99 ff00ff  diagonal: last pixel
 * px 151  80 ffffff  diagonal: beside the line
 * px 170 100 ffffff  diagonal: the end point is excluded
 *
 * A 64x64 32-bit top-down DIB section, pixel (x,y) = RGB(4x, 4y, 0x80),
 * BitBlt SRCCOPY to (10,120).
 * px  10 120 000080  BitBlt: source (0,0)
 * px  11 120 040080  BitBlt: source (1,0), red grows with x
 * px  10 121 000480  BitBlt: source (0,1), green grows with y (top-down DIB)
 * px  73 183 fcfc80  BitBlt: source (63,63)
 * px  42 140 805080  BitBlt: source (32,20)
 * px  74 120 ffffff  BitBlt: nothing right of the 64 columns
 * px  10 184 ffffff  BitBlt: nothing below the 64 rows
 *
 * StretchBlt of the source's top-left 16x16 to 32x32 at (90,120), mode
 * COLORONCOLOR: an exact 2x enlargement, every source pixel becomes 2x2.
 * px  90 120 000080  StretchBlt: source (0,0)
 * px  91 121 000080  StretchBlt: source (0,0) covers 2x2
 * px  92 122 040480  StretchBlt: source (1,1)
 * px 121 151 3c3c80  StretchBlt: source (15,15)
 * px 122 120 ffffff  StretchBlt: nothing right of 32 columns
 *
 * An 8-bit bottom-up DIB, 16x16, with a 16-entry colour table, drawn 1:1 at
 * (140,120) by StretchDIBits (DIB_RGB_COLORS). Index = x/4 + 4*(y/4) with y
 * counted from the top of the picture; entry k is RGB(16k, 255-16k,
 * k odd ? 255 : 0). The first row in memory is the bottom row.
 * px 140 120 00ff00  8-bit DIB: index 0 at the top-left
 * px 144 120 10efff  8-bit DIB: index 1
 * px 140 124 40bf00  8-bit DIB: index 4 (second band from the top)
 * px 155 135 f00fff  8-bit DIB: index 15 at the bottom-right
 * px 140 135 c03f00  8-bit DIB: index 12 at the bottom-left
 * px 156 120 ffffff  8-bit DIB: nothing right of it
 *
 * SetPixel(200 + 2i, 130, RGB(255, 32i, 0)) for i = 0..7.
 * px 200 130 ff0000  SetPixel i = 0
 * px 202 130 ff2000  SetPixel i = 1
 * px 214 130 ffe000  SetPixel i = 7
 * px 201 130 ffffff  SetPixel: between the dots
 *
 * TextOutA(210, 60, "winterp") in dark red with a transparent background.
 * The glyphs depend on the font, so the test only checks that the box
 * x 210..309, y 60..89 holds at least 20 pixels of exactly 800000 and that
 * no pixel of that colour is anywhere else in the frame.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#define CLIENT_W 320
#define CLIENT_H 240

static HBITMAP gradient;
static HDC gradient_dc;

static void fill(HDC dc, int l, int t, int r, int b, COLORREF c)
{
    RECT rc = {l, t, r, b};
    HBRUSH br = CreateSolidBrush(c);
    FillRect(dc, &rc, br);
    DeleteObject(br);
}

/* The 64x64 gradient, drawn by code into a DIB section's own memory. */
static void make_gradient(void)
{
    BITMAPINFO bi;
    DWORD *bits = NULL;
    ZeroMemory(&bi, sizeof bi);
    bi.bmiHeader.biSize = sizeof bi.bmiHeader;
    bi.bmiHeader.biWidth = 64;
    bi.bmiHeader.biHeight = -64; /* top-down */
    bi.bmiHeader.biPlanes = 1;
    bi.bmiHeader.biBitCount = 32;
    bi.bmiHeader.biCompression = BI_RGB;
    gradient = CreateDIBSection(NULL, &bi, DIB_RGB_COLORS, (void **)&bits, NULL, 0);
    if (!gradient || !bits)
        return;
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++)
            /* A 32-bit BI_RGB DIB pixel is 0x00RRGGBB in a DWORD. */
            bits[y * 64 + x] = ((DWORD)(x * 4) << 16) | ((DWORD)(y * 4) << 8) | 0x80;
    gradient_dc = CreateCompatibleDC(NULL);
    SelectObject(gradient_dc, gradient);
}

static void draw_palette_dib(HDC dc)
{
    struct {
        BITMAPINFOHEADER h;
        RGBQUAD colors[16];
    } bi;
    BYTE pixels[16 * 16]; /* rows are 16 bytes: already DWORD-aligned */
    ZeroMemory(&bi, sizeof bi);
    bi.h.biSize = sizeof bi.h;
    bi.h.biWidth = 16;
    bi.h.biHeight = 16; /* bottom-up */
    bi.h.biPlanes = 1;
    bi.h.biBitCount = 8;
    bi.h.biCompression = BI_RGB;
    bi.h.biClrUsed = 16;
    for (int k = 0; k < 16; k++) {
        bi.colors[k].rgbRed = (BYTE)(16 * k);
        bi.colors[k].rgbGreen = (BYTE)(255 - 16 * k);
        bi.colors[k].rgbBlue = (k & 1) ? 255 : 0;
    }
    for (int row = 0; row < 16; row++) {
        int y = 15 - row; /* memory row 0 is the bottom of the picture */
        for (int x = 0; x < 16; x++)
            pixels[row * 16 + x] = (BYTE)(x / 4 + 4 * (y / 4));
    }
    StretchDIBits(dc, 140, 120, 16, 16, 0, 0, 16, 16, pixels, (BITMAPINFO *)&bi, DIB_RGB_COLORS, SRCCOPY);
}

static void paint(HDC dc)
{
    RECT all = {0, 0, CLIENT_W, CLIENT_H};
    FillRect(dc, &all, (HBRUSH)GetStockObject(WHITE_BRUSH));

    fill(dc, 10, 10, 50, 40, RGB(255, 0, 0));
    fill(dc, 60, 10, 100, 40, RGB(0, 255, 0));
    fill(dc, 110, 10, 150, 40, RGB(0, 0, 255));
    fill(dc, 160, 10, 200, 40, RGB(255, 255, 0));

    HPEN black = CreatePen(PS_SOLID, 1, RGB(0, 0, 0));
    HPEN red = CreatePen(PS_SOLID, 1, RGB(255, 0, 0));
    HPEN magenta = CreatePen(PS_SOLID, 1, RGB(255, 0, 255));
    HBRUSH cyan = CreateSolidBrush(RGB(0, 255, 255));
    HBRUSH blue = CreateSolidBrush(RGB(0, 0, 255));
    HBRUSH green = CreateSolidBrush(RGB(0, 128, 0));

    HGDIOBJ old_pen = SelectObject(dc, black);
    HGDIOBJ old_brush = SelectObject(dc, cyan);
    Rectangle(dc, 210, 10, 260, 40);

    SelectObject(dc, red);
    SelectObject(dc, blue);
    Ellipse(dc, 270, 10, 310, 40);

    POINT tri[3] = {{10, 110}, {60, 50}, {110, 110}};
    SelectObject(dc, black);
    SelectObject(dc, green);
    Polygon(dc, tri, 3);

    SelectObject(dc, magenta);
    MoveToEx(dc, 120, 50, NULL);
    LineTo(dc, 200, 50);
    MoveToEx(dc, 120, 55, NULL);
    LineTo(dc, 120, 100);
    MoveToEx(dc, 130, 60, NULL);
    LineTo(dc, 170, 100);

    SelectObject(dc, old_pen);
    SelectObject(dc, old_brush);
    DeleteObject(black);
    DeleteObject(red);
    DeleteObject(magenta);
    DeleteObject(cyan);
    DeleteObject(blue);
    DeleteObject(green);

    SetTextColor(dc, RGB(128, 0, 0));
    SetBkMode(dc, TRANSPARENT);
    TextOutA(dc, 210, 60, "winterp", 7);

    if (gradient_dc) {
        BitBlt(dc, 10, 120, 64, 64, gradient_dc, 0, 0, SRCCOPY);
        SetStretchBltMode(dc, COLORONCOLOR);
        StretchBlt(dc, 90, 120, 32, 32, gradient_dc, 0, 0, 16, 16, SRCCOPY);
    }

    draw_palette_dib(dc);

    for (int i = 0; i < 8; i++)
        SetPixel(dc, 200 + 2 * i, 130, RGB(255, 32 * i, 0));
}

static LRESULT CALLBACK wndproc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    switch (msg) {
    case WM_ERASEBKGND:
        return 1; /* WM_PAINT covers every pixel */
    case WM_PAINT: {
        PAINTSTRUCT ps;
        HDC dc = BeginPaint(hwnd, &ps);
        paint(dc);
        EndPaint(hwnd, &ps);
        return 0;
    }
    case WM_DESTROY:
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcA(hwnd, msg, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmdline, int show)
{
    (void)prev;
    (void)cmdline;
    (void)show;
    WNDCLASSA wc;
    ZeroMemory(&wc, sizeof wc);
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorA(NULL, (LPCSTR)IDC_ARROW);
    wc.lpszClassName = "gdi_draw";
    if (!RegisterClassA(&wc))
        return 1;
    make_gradient();

    DWORD style = WS_OVERLAPPED | WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX;
    RECT rc = {0, 0, CLIENT_W, CLIENT_H};
    AdjustWindowRect(&rc, style, FALSE);
    HWND hwnd = CreateWindowA("gdi_draw", "gdi_draw", style, CW_USEDEFAULT, CW_USEDEFAULT, rc.right - rc.left,
                              rc.bottom - rc.top, NULL, NULL, inst, NULL);
    if (!hwnd)
        return 2;
    ShowWindow(hwnd, SW_SHOW);
    UpdateWindow(hwnd);

    MSG m;
    while (GetMessageA(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageA(&m);
    }
    return (int)m.wParam;
}
