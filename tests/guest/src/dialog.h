/* Resource identifiers shared by dialog.c and dialog.rc. */
#define IDD_MAIN 100
#define IDC_LABEL 101
#define IDC_NAME 102
#define IDC_REMEMBER 103
#define IDS_GREETING 200
#define IDS_SECOND 201
#define IDS_MISSING 299
