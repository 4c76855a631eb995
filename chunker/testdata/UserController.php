<?php

declare(strict_types=1);

namespace App\Http\Controllers;

use App\Models\User;
use Illuminate\Http\Request;

/**
 * Handles user CRUD endpoints.
 */
class UserController extends Controller
{
    private const PER_PAGE = 20;

    public function __construct(private UserRepository $users)
    {
    }

    /**
     * Lists users, newest first.
     */
    public function index(Request $request): array
    {
        $page = (int) $request->query('page', 1);
        return $this->users->paginate(self::PER_PAGE, $page);
    }

    public function show(int $id): User
    {
        $user = $this->users->find($id);
        if ($user === null) {
            abort(404);
        }
        return $user;
    }

    public static function routes(): array
    {
        return ['index' => 'GET /users', 'show' => 'GET /users/{id}'];
    }
}

interface UserRepository
{
    public function find(int $id): ?User;

    public function paginate(int $perPage, int $page): array;
}

trait Timestamps
{
    public function touch(): void
    {
        $this->updatedAt = new \DateTimeImmutable();
    }
}

enum Status: string
{
    case Active = 'active';
    case Banned = 'banned';
}

// slugify turns a title into a URL slug.
function slugify(string $title): string
{
    return strtolower(trim(preg_replace('/[^a-z0-9]+/i', '-', $title), '-'));
}

$router->get('/users', [UserController::class, 'index']);
