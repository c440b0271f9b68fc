/* Mapping modes and metafiles. Draws into a 32-bit top-down DIB section selected into
 * a memory DC and prints what GDI reports: extents each mapping mode sets, LPtoDP and
 * DPtoLP results (rounding included), the MM_ISOTROPIC viewport adjustment, the world
 * transform, and where shapes drawn in logical units land on the device (the bounding
 * box of the pixels a call changed, and selected pixels). Then a Windows metafile is
 * recorded, its header and records printed, and played back; then an enhanced
 * metafile the same way.
 *
 * The metric modes' extents depend on the display's size in millimetres, which differs
 * between systems, so they are printed as relations to GetDeviceCaps (HORZSIZE etc.),
 * not as numbers. Text depends on the fonts, so only coarse facts about it are printed.
 * Expected output: a run under Wine 8. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

#define W 200
#define H 200

static HDC dc;
static DWORD *bits;

static void clear(void)
{
    int i;
    GdiFlush();
    for (i = 0; i < W * H; i++)
        bits[i] = 0xffffff;
}

/* Bounding box of the pixels that are not white (device coordinates, inclusive). */
static void bbox(const char *what)
{
    int x, y, l = W, t = H, r = -1, b = -1;
    GdiFlush();
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++)
            if ((bits[y * W + x] & 0xffffff) != 0xffffff) {
                if (x < l) l = x;
                if (x > r) r = x;
                if (y < t) t = y;
                if (y > b) b = y;
            }
    if (r < 0)
        printf("%s: nothing drawn\n", what);
    else
        printf("%s: pixels x %d..%d y %d..%d\n", what, l, r, t, b);
}

/* The pixels drawn lie within 2 pixels of rectangle r (exclusive right/bottom):
 * metafile playback maps the picture's frame, whose millimetre size depends on
 * the display, so exact edges may differ by rounding. */
static void near_rect(const char *what, const RECT *r)
{
    int x, y, l = W, t = H, rr = -1, b = -1;
    GdiFlush();
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++)
            if ((bits[y * W + x] & 0xffffff) != 0xffffff) {
                if (x < l) l = x;
                if (x > rr) rr = x;
                if (y < t) t = y;
                if (y > b) b = y;
            }
    printf("%s: drawn within 2 pixels of the rectangle: %s\n", what,
           rr >= 0 && abs(l - r->left) <= 2 && abs(t - r->top) <= 2 && abs(rr + 1 - r->right) <= 2 &&
                   abs(b + 1 - r->bottom) <= 2
               ? "yes"
               : "no");
}

static void px(int x, int y)
{
    GdiFlush();
    printf("  px(%d,%d)=%06lx\n", x, y, (unsigned long)(bits[y * W + x] & 0xffffff));
}

static void exts(const char *what)
{
    SIZE we, ve;
    POINT wo, vo;
    GetWindowExtEx(dc, &we);
    GetViewportExtEx(dc, &ve);
    GetWindowOrgEx(dc, &wo);
    GetViewportOrgEx(dc, &vo);
    printf("%s: mode %d wext %ld,%ld vext %ld,%ld worg %ld,%ld vorg %ld,%ld\n", what,
           GetMapMode(dc), we.cx, we.cy, ve.cx, ve.cy, wo.x, wo.y, vo.x, vo.y);
}

static void lp(int x, int y)
{
    POINT p;
    p.x = x;
    p.y = y;
    LPtoDP(dc, &p, 1);
    printf("  LPtoDP(%d,%d) = %ld,%ld\n", x, y, p.x, p.y);
}

static void dp(int x, int y)
{
    POINT p;
    p.x = x;
    p.y = y;
    DPtoLP(dc, &p, 1);
    printf("  DPtoLP(%d,%d) = %ld,%ld\n", x, y, p.x, p.y);
}

static void metric(int mode, const char *name, int num, int den)
{
    SIZE we, ve;
    int hs = GetDeviceCaps(dc, HORZSIZE), vs = GetDeviceCaps(dc, VERTSIZE);
    int hr = GetDeviceCaps(dc, HORZRES), vr = GetDeviceCaps(dc, VERTRES);
    POINT p;
    SetMapMode(dc, mode);
    GetWindowExtEx(dc, &we);
    GetViewportExtEx(dc, &ve);
    printf("%s: mode %d, wext = size*%d/%d: %s, vext = (res, -res): %s\n", name, GetMapMode(dc),
           num, den,
           we.cx == MulDiv(hs, num, den) && we.cy == MulDiv(vs, num, den) ? "yes" : "no",
           ve.cx == hr && ve.cy == -vr ? "yes" : "no");
    /* A point a whole window extent away lands a whole viewport extent away. */
    p.x = we.cx;
    p.y = we.cy;
    LPtoDP(dc, &p, 1);
    printf("  LPtoDP(wext) = vext: %s\n", p.x == ve.cx && p.y == ve.cy ? "yes" : "no");
    /* SetWindowExtEx succeeds but changes nothing in a fixed mode. */
    printf("  SetWindowExtEx(7,7) -> %d, ", SetWindowExtEx(dc, 7, 7, NULL));
    GetWindowExtEx(dc, &we);
    printf("wext unchanged: %s\n", we.cx == MulDiv(hs, num, den) ? "yes" : "no");
}

static void mapping(void)
{
    SIZE s;
    XFORM xf;
    POINT pts[3];

    exts("default");
    printf("SetMapMode(9) = %d, SetMapMode(0) = %d\n", SetMapMode(dc, 9), SetMapMode(dc, 0));
    printf("SetWindowExtEx(5,5) in MM_TEXT = %d\n", SetWindowExtEx(dc, 5, 5, NULL));
    exts("MM_TEXT after SetWindowExtEx");
    SetWindowOrgEx(dc, 3, 4, NULL);
    SetViewportOrgEx(dc, 10, 20, NULL);
    lp(0, 0);
    lp(5, 5);
    dp(0, 0);
    SetWindowOrgEx(dc, 0, 0, NULL);
    SetViewportOrgEx(dc, 0, 0, NULL);

    metric(MM_LOMETRIC, "MM_LOMETRIC", 10, 1);
    metric(MM_HIMETRIC, "MM_HIMETRIC", 100, 1);
    metric(MM_LOENGLISH, "MM_LOENGLISH", 1000, 254);
    metric(MM_HIENGLISH, "MM_HIENGLISH", 10000, 254);
    metric(MM_TWIPS, "MM_TWIPS", 14400, 254);

    /* MM_ANISOTROPIC keeps the extents of the mode before it. */
    SetMapMode(dc, MM_TEXT);
    printf("MM_ANISOTROPIC from MM_TEXT: previous mode %d\n", SetMapMode(dc, MM_ANISOTROPIC));
    exts("  ");
    printf("SetWindowExtEx(0,5) = %d\n", SetWindowExtEx(dc, 0, 5, NULL));
    SetWindowExtEx(dc, 1000, 1000, NULL);
    SetViewportExtEx(dc, 200, -200, NULL);
    SetViewportOrgEx(dc, 0, 200, NULL);
    exts("anisotropic 1000 -> 200,-200");
    lp(1, 1);
    lp(2, 2);
    lp(3, 3);
    lp(5, 5);
    lp(-3, -3);
    lp(999, 999);
    lp(1000, 1000);
    lp(-1000, 2500);
    dp(1, 1);
    dp(3, 3);
    dp(0, 200);
    dp(199, 0);
    SetWindowExtEx(dc, 4, 4, NULL);
    SetViewportExtEx(dc, 2, 2, NULL);
    SetViewportOrgEx(dc, 0, 0, NULL);
    exts("anisotropic 4 -> 2 (halves)");
    lp(1, 1);
    lp(-1, -1);
    lp(3, 3);
    lp(-3, -3);
    dp(1, 1);
    dp(-1, -1);
    SetWindowExtEx(dc, 3, 7, NULL);
    SetViewportExtEx(dc, 5, 2, NULL);
    SetWindowOrgEx(dc, -4, 9, NULL);
    SetViewportOrgEx(dc, 6, -1, NULL);
    exts("anisotropic 3,7 -> 5,2");
    lp(0, 0);
    lp(10, 10);
    lp(-7, 33);
    dp(10, 10);
    dp(-5, 4);
    pts[0].x = 1; pts[0].y = 2;
    pts[1].x = 2; pts[1].y = 3;
    pts[2].x = 3; pts[2].y = 4;
    LPtoDP(dc, pts, 3);
    printf("  LPtoDP 3 points: %ld,%ld %ld,%ld %ld,%ld\n", pts[0].x, pts[0].y, pts[1].x, pts[1].y,
           pts[2].x, pts[2].y);
    printf("ScaleViewportExtEx(3,2,4,1) = %d\n", ScaleViewportExtEx(dc, 3, 2, 4, 1, &s));
    printf("  previous %ld,%ld\n", s.cx, s.cy);
    printf("ScaleWindowExtEx(1,3,2,7) = %d\n", ScaleWindowExtEx(dc, 1, 3, 2, 7, &s));
    printf("  previous %ld,%ld\n", s.cx, s.cy);
    printf("ScaleWindowExtEx(1,0,1,1) = %d\n", ScaleWindowExtEx(dc, 1, 0, 1, 1, NULL));
    exts("after scaling");
    OffsetViewportOrgEx(dc, 5, 5, NULL);
    OffsetWindowOrgEx(dc, -2, 3, NULL);
    exts("after offsets");
    printf("SetMapMode(MM_ANISOTROPIC) again = %d\n", SetMapMode(dc, MM_ANISOTROPIC));
    exts("  extents kept");

    /* MM_ISOTROPIC: starts with MM_LOMETRIC's extents; the viewport extent is
     * shrunk so that units are square (the display's pixels are square). */
    SetMapMode(dc, MM_TEXT);
    SetWindowOrgEx(dc, 0, 0, NULL);
    SetViewportOrgEx(dc, 0, 0, NULL);
    SetMapMode(dc, MM_ISOTROPIC);
    SetWindowExtEx(dc, 100, 100, NULL);
    SetViewportExtEx(dc, 400, -200, NULL);
    exts("isotropic 100,100 -> 400,-200");
    SetViewportExtEx(dc, 300, 600, NULL);
    exts("isotropic 100,100 -> 300,600");
    SetWindowExtEx(dc, 100, 50, NULL);
    exts("isotropic then wext 100,50");
    SetViewportExtEx(dc, 7, 1000, NULL);
    exts("isotropic 100,50 -> 7,1000");
    SetWindowExtEx(dc, 1000, 1, NULL);
    SetViewportExtEx(dc, 1, 1000, NULL);
    exts("isotropic 1000,1 -> 1,1000");
    lp(10, 10);

    /* The world transform (GM_ADVANCED). */
    SetMapMode(dc, MM_TEXT);
    printf("SetWorldTransform in GM_COMPATIBLE = %d\n", SetWorldTransform(dc, &xf));
    printf("SetGraphicsMode(GM_ADVANCED) = %d\n", SetGraphicsMode(dc, GM_ADVANCED));
    xf.eM11 = 2; xf.eM12 = 0; xf.eM21 = 0; xf.eM22 = 3; xf.eDx = 10; xf.eDy = -5;
    printf("SetWorldTransform = %d\n", SetWorldTransform(dc, &xf));
    lp(1, 1);
    lp(7, -2);
    xf.eM11 = 0; xf.eM12 = 1; xf.eM21 = -1; xf.eM22 = 0; xf.eDx = 0; xf.eDy = 0;
    printf("ModifyWorldTransform(right) = %d\n", ModifyWorldTransform(dc, &xf, MWT_RIGHTMULTIPLY));
    lp(1, 1);
    GetWorldTransform(dc, &xf);
    printf("  world %g %g %g %g %g %g\n", xf.eM11, xf.eM12, xf.eM21, xf.eM22, xf.eDx, xf.eDy);
    xf.eM11 = 0; xf.eM12 = 1; xf.eM21 = -1; xf.eM22 = 0; xf.eDx = 1; xf.eDy = 2;
    ModifyWorldTransform(dc, &xf, MWT_LEFTMULTIPLY);
    GetWorldTransform(dc, &xf);
    printf("  after left multiply %g %g %g %g %g %g\n", xf.eM11, xf.eM12, xf.eM21, xf.eM22,
           xf.eDx, xf.eDy);
    printf("SetGraphicsMode(GM_COMPATIBLE) with a transform = %d\n",
           SetGraphicsMode(dc, GM_COMPATIBLE));
    ModifyWorldTransform(dc, NULL, MWT_IDENTITY);
    printf("SetGraphicsMode(GM_COMPATIBLE) after identity = %d\n",
           SetGraphicsMode(dc, GM_COMPATIBLE));
}

/* 100 logical units are 200 pixels, y up, the origin at the bottom-left of the
 * bitmap. */
static void scaled_page(void)
{
    SetMapMode(dc, MM_ANISOTROPIC);
    SetWindowExtEx(dc, 100, 100, NULL);
    SetViewportExtEx(dc, 200, -200, NULL);
    SetWindowOrgEx(dc, 0, 0, NULL);
    SetViewportOrgEx(dc, 0, 200, NULL);
}

static void drawing(void)
{
    HBRUSH red = CreateSolidBrush(RGB(255, 0, 0));
    HPEN pen2 = CreatePen(PS_SOLID, 2, RGB(0, 0, 255));
    HPEN pen0 = CreatePen(PS_SOLID, 0, RGB(0, 0, 255));
    HGDIOBJ oldb, oldp;
    RECT r;
    POINT p;
    SIZE sz, sz2;
    HFONT f;
    HDC src;
    HBITMAP sbm;
    int x, y;

    scaled_page();
    clear();
    r.left = 10; r.top = 30; r.right = 30; r.bottom = 10;
    FillRect(dc, &r, red);
    bbox("FillRect {10,30,30,10}");
    clear();
    r.left = 10; r.top = 10; r.right = 30; r.bottom = 30;
    FillRect(dc, &r, red);
    bbox("FillRect {10,10,30,30}");
    clear();
    oldb = SelectObject(dc, red);
    PatBlt(dc, 10, 10, 20, 20, PATCOPY);
    bbox("PatBlt 10,10 20x20");
    clear();
    oldp = SelectObject(dc, pen0);
    Rectangle(dc, 10, 10, 40, 30);
    bbox("Rectangle 10,10,40,30 pen 0");
    px(20, 180);
    px(20, 140);
    px(30, 160);
    clear();
    SelectObject(dc, pen2);
    Rectangle(dc, 10, 10, 40, 30);
    bbox("Rectangle 10,10,40,30 pen width 2 (4 pixels)");
    px(30, 160);
    clear();
    SelectObject(dc, pen0);
    MoveToEx(dc, 5, 5, NULL);
    LineTo(dc, 50, 5);
    GetCurrentPositionEx(dc, &p);
    bbox("LineTo 5,5 -> 50,5");
    printf("  current position %ld,%ld\n", p.x, p.y);
    clear();
    MoveToEx(dc, 5, 5, NULL);
    LineTo(dc, 5, 50);
    bbox("LineTo 5,5 -> 5,50");
    clear();
    Ellipse(dc, 10, 10, 50, 30);
    bbox("Ellipse 10,10,50,30");
    px(60, 160);
    clear();
    SetPixel(dc, 10, 10, RGB(0, 255, 0));
    bbox("SetPixel 10,10");
    printf("  GetPixel(10,10) = %06lx\n", (unsigned long)GetPixel(dc, 10, 10));
    clear();
    IntersectClipRect(dc, 20, 20, 60, 60);
    GetClipBox(dc, &r);
    printf("GetClipBox after IntersectClipRect 20,20,60,60: %ld,%ld,%ld,%ld\n", r.left, r.top,
           r.right, r.bottom);
    PatBlt(dc, 0, 0, 100, 100, PATCOPY);
    bbox("PatBlt 0,0 100x100 clipped");
    SelectClipRgn(dc, NULL);
    clear();

    /* BitBlt: a 10x10 source whose top row is blue, copied to a destination of
     * 10x10 logical units (20x20 pixels, y flipped). */
    src = CreateCompatibleDC(dc);
    sbm = CreateCompatibleBitmap(dc, 10, 10);
    SelectObject(src, sbm);
    PatBlt(src, 0, 0, 10, 10, WHITENESS);
    SelectObject(src, red);
    PatBlt(src, 0, 1, 10, 9, PATCOPY);
    for (x = 0; x < 10; x++)
        SetPixel(src, x, 0, RGB(0, 0, 255));
    BitBlt(dc, 10, 10, 10, 10, src, 0, 0, SRCCOPY);
    bbox("BitBlt 10x10 to 10,10");
    for (y = 158; y <= 181; y += 1)
        if (y == 158 || y == 159 || y == 160 || y == 161 || y == 178 || y == 179 || y == 180)
            px(25, y);
    clear();
    StretchBlt(dc, 10, 30, 20, -20, src, 0, 0, 10, 10, SRCCOPY);
    bbox("StretchBlt 10,30 20x-20 from 10x10");
    px(25, 142);
    px(25, 178);
    DeleteDC(src);
    DeleteObject(sbm);
    clear();

    /* Text: a font of height -20 logical units is 40 pixels; extents come back in
     * logical units. */
    f = CreateFontA(-20, 0, 0, 0, FW_NORMAL, 0, 0, 0, ANSI_CHARSET, 0, 0, 0, 0, "Arial");
    SelectObject(dc, f);
    GetTextExtentPoint32A(dc, "Hello", 5, &sz);
    SetMapMode(dc, MM_TEXT);
    GetTextExtentPoint32A(dc, "Hello", 5, &sz2);
    printf("text extent: logical height %s, MM_TEXT extent about the same: %s\n",
           sz.cy >= 18 && sz.cy <= 28 ? "18..28" : "other",
           sz2.cy >= sz.cy - 2 && sz2.cy <= sz.cy + 2 && sz2.cx >= sz.cx - 3 && sz2.cx <= sz.cx + 3
               ? "yes"
               : "no");
    scaled_page();
    clear();
    SetBkMode(dc, TRANSPARENT);
    SetTextAlign(dc, TA_LEFT | TA_BOTTOM);
    TextOutA(dc, 10, 10, "Hi", 2);
    GdiFlush();
    {
        int l = W, t = H, rr = -1, b = -1;
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++)
                if ((bits[y * W + x] & 0xffffff) != 0xffffff) {
                    if (x < l) l = x;
                    if (x > rr) rr = x;
                    if (y < t) t = y;
                    if (y > b) b = y;
                }
        printf("TextOut at 10,10 bottom-aligned: starts at x 20..24: %s, bottom at y 150..180: %s, "
               "taller than 20: %s\n",
               l >= 20 && l <= 24 ? "yes" : "no", b >= 150 && b <= 180 ? "yes" : "no",
               b - t > 20 ? "yes" : "no");
    }
    SelectObject(dc, GetStockObject(SYSTEM_FONT));
    DeleteObject(f);
    SelectObject(dc, oldb);
    SelectObject(dc, oldp);
    DeleteObject(red);
    DeleteObject(pen2);
    DeleteObject(pen0);
    SetMapMode(dc, MM_TEXT);
    SetViewportOrgEx(dc, 0, 0, NULL);
}

static int CALLBACK enum_rec(HDC h, HANDLETABLE *t, METARECORD *r, int n, LPARAM lp)
{
    (void)h;
    (void)t;
    (void)n;
    printf("  record %04x size %lu\n", r->rdFunction, (unsigned long)r->rdSize);
    (*(int *)lp)++;
    return 1;
}

static void metafiles(void)
{
    HDC mdc = CreateMetaFileA(NULL);
    HBRUSH green = CreateSolidBrush(RGB(0, 255, 0));
    HPEN pen = CreatePen(PS_SOLID, 1, RGB(0, 0, 255));
    HMETAFILE mf, mf2;
    UINT size;
    BYTE buf[4096];
    METAHEADER *mh = (METAHEADER *)buf;
    POINT tri[3] = {{60, 60}, {90, 60}, {60, 90}};
    int count = 0;
    HENHMETAFILE emf;
    ENHMETAHEADER eh;
    RECT r;
    HDC edc;

    printf("metafile DC: GetDeviceCaps TECHNOLOGY = %d\n", GetDeviceCaps(mdc, TECHNOLOGY));
    SelectObject(mdc, green);
    SelectObject(mdc, pen);
    Rectangle(mdc, 10, 10, 40, 30);
    MoveToEx(mdc, 5, 50, NULL);
    LineTo(mdc, 45, 50);
    Polygon(mdc, tri, 3);
    SetPixel(mdc, 100, 100, RGB(255, 0, 255));
    SetBkColor(mdc, RGB(1, 2, 3));
    PatBlt(mdc, 110, 10, 20, 5, PATCOPY);
    Ellipse(mdc, 120, 120, 160, 140);
    mf = CloseMetaFile(mdc);
    DeleteObject(green);
    DeleteObject(pen);
    printf("CloseMetaFile: %s\n", mf ? "handle" : "NULL");
    size = GetMetaFileBitsEx(mf, 0, NULL);
    printf("GetMetaFileBitsEx size %u\n", size);
    if (size > sizeof(buf))
        return;
    GetMetaFileBitsEx(mf, size, buf);
    printf("header: type %u headersize %u version %x size %lu objects %u maxrecord %lu\n",
           mh->mtType, mh->mtHeaderSize, mh->mtVersion, (unsigned long)mh->mtSize,
           mh->mtNoObjects, (unsigned long)mh->mtMaxRecord);
    EnumMetaFile(dc, mf, enum_rec, (LPARAM)&count);
    printf("EnumMetaFile: %d records\n", count);
    clear();
    PlayMetaFile(dc, mf);
    bbox("PlayMetaFile");
    px(20, 20);
    px(10, 10);
    px(25, 50);
    px(65, 65);
    px(100, 100);
    px(115, 12);
    px(140, 130);
    clear();
    SetViewportOrgEx(dc, 20, 30, NULL);
    PlayMetaFile(dc, mf);
    SetViewportOrgEx(dc, 0, 0, NULL);
    bbox("PlayMetaFile with viewport origin 20,30");
    mf2 = SetMetaFileBitsEx(size, buf);
    clear();
    PlayMetaFile(dc, mf2);
    bbox("SetMetaFileBitsEx copy played");
    DeleteMetaFile(mf2);
    printf("DeleteMetaFile = %d\n", DeleteMetaFile(mf));

    /* An enhanced metafile referencing the memory DC; no frame given, so GDI
     * takes the picture's bounds. Played into a rectangle twice its size. */
    edc = CreateEnhMetaFileA(dc, NULL, NULL, NULL);
    green = CreateSolidBrush(RGB(0, 255, 0));
    SelectObject(edc, green);
    Rectangle(edc, 10, 10, 50, 30);
    MoveToEx(edc, 10, 40, NULL);
    LineTo(edc, 50, 40);
    emf = CloseEnhMetaFile(edc);
    DeleteObject(green);
    printf("CloseEnhMetaFile: %s\n", emf ? "handle" : "NULL");
    GetEnhMetaFileHeader(emf, sizeof(eh), &eh);
    printf("EMF header: type %lu records %lu handles %u bounds %ld,%ld,%ld,%ld signature %lx\n",
           (unsigned long)eh.iType, (unsigned long)eh.nRecords, eh.nHandles, eh.rclBounds.left,
           eh.rclBounds.top, eh.rclBounds.right, eh.rclBounds.bottom,
           (unsigned long)eh.dSignature);
    printf("  bits size = header nBytes: %s\n",
           GetEnhMetaFileBits(emf, 0, NULL) == eh.nBytes ? "yes" : "no");
    clear();
    r.left = 10; r.top = 10; r.right = 51; r.bottom = 41;
    PlayEnhMetaFile(dc, emf, &r);
    near_rect("PlayEnhMetaFile into its own bounds", &r);
    px(30, 20);
    px(30, 5);
    clear();
    r.left = 0; r.top = 0; r.right = 82; r.bottom = 62;
    PlayEnhMetaFile(dc, emf, &r);
    near_rect("PlayEnhMetaFile into 0,0,82,62", &r);
    px(40, 20);
    px(40, 50);
    DeleteEnhMetaFile(emf);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
    BITMAPINFO bi;
    HBITMAP bm;
    (void)inst;
    (void)prev;
    (void)cmd;
    (void)show;
    memset(&bi, 0, sizeof(bi));
    bi.bmiHeader.biSize = sizeof(bi.bmiHeader);
    bi.bmiHeader.biWidth = W;
    bi.bmiHeader.biHeight = -H;
    bi.bmiHeader.biPlanes = 1;
    bi.bmiHeader.biBitCount = 32;
    bi.bmiHeader.biCompression = BI_RGB;
    dc = CreateCompatibleDC(NULL);
    bm = CreateDIBSection(dc, &bi, DIB_RGB_COLORS, (void **)&bits, NULL, 0);
    SelectObject(dc, bm);
    mapping();
    drawing();
    metafiles();
    DeleteDC(dc);
    DeleteObject(bm);
    printf("done\n");
    fflush(stdout);
    return 0;
}
